/*
 * CPtySupport: a child process on a fresh pseudo-terminal, for the SSH gateway.
 *
 * Swift cannot fork safely (the child of a multi-threaded process may only call
 * async-signal-safe functions before exec), so the fork-to-exec path is C.
 */
#ifndef CARDEALER_CPTYSUPPORT_H
#define CARDEALER_CPTYSUPPORT_H

#include <sys/types.h>

/*
 * Opens a pty of `columns` x `rows`, forks, and in the child makes the pty's
 * terminal end its standard input, output and error, puts it in a process
 * group of its own (not a session: the pty is not its controlling terminal,
 * so the caller sends it SIGWINCH and SIGHUP), puts every signal back to its
 * default, closes every other descriptor, caps
 * the address space at `memory_limit_bytes` (0: no cap) and execs `path` with
 * `argv` and `envp`. Returns the child's pid and sets *controller_fd to the
 * controlling end (close-on-exec, non-blocking); -1 with errno set on failure.
 */
pid_t cpty_spawn(const char *path, char *const argv[], char *const envp[], unsigned short columns,
                 unsigned short rows, unsigned long long memory_limit_bytes, int *controller_fd);

/* Sets the pty's window size (the caller tells the child, with SIGWINCH). 0, or -1 with errno set. */
int cpty_resize(int controller_fd, unsigned short columns, unsigned short rows);

#endif
