#define _GNU_SOURCE
#include "CPtySupport.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Writes errno to the pipe and leaves: the parent reports why exec failed. */
static void fail_in_child(int report_fd) {
    int error = errno;
    ssize_t ignored = write(report_fd, &error, sizeof error);
    (void)ignored;
    _exit(127);
}

/* Closes every descriptor from `first` up, except `keep`. */
static void close_all_from(int first, int keep) {
#ifdef SYS_close_range
    int ranges_closed = 1;
    if (keep > first && syscall(SYS_close_range, (unsigned)first, (unsigned)(keep - 1), 0) != 0) ranges_closed = 0;
    if (ranges_closed && syscall(SYS_close_range, (unsigned)(keep + 1), ~0U, 0) == 0) return;
#endif
    long most = sysconf(_SC_OPEN_MAX);
    if (most < 0 || most > 65536) most = 65536;
    for (int fd = first; fd < most; fd++)
        if (fd != keep) close(fd);
}

pid_t cpty_spawn(const char *path, char *const argv[], char *const envp[], unsigned short columns,
                 unsigned short rows, unsigned long long memory_limit_bytes, int *controller_fd) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    size.ws_col = columns ? columns : 80;
    size.ws_row = rows ? rows : 24;

    int controller = -1, terminal = -1;
    if (openpty(&controller, &terminal, NULL, NULL, &size) != 0) return -1;

    /* A close-on-exec pipe: it closes silently when exec succeeds, or carries errno when it fails. */
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        int error = errno;
        close(controller);
        close(terminal);
        errno = error;
        return -1;
    }

    pid_t pid = fork();
    if (pid < 0) {
        int error = errno;
        close(controller);
        close(terminal);
        close(report[0]);
        close(report[1]);
        errno = error;
        return -1;
    }
    if (pid == 0) {
        /* The child: async-signal-safe calls only, until exec. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int signal_number = 1; signal_number < NSIG; signal_number++) {
            if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
            signal(signal_number, SIG_DFL);
        }
        close(controller);
        /* A process group of its own, not a session: setsid() would also give it a scheduling group of its own
         * (Linux's autogroup), and every session's background work would then weigh as much as any keypress.
         * So the pty is not its controlling terminal: the server sends SIGWINCH and SIGHUP itself. */
        if (setpgid(0, 0) < 0) fail_in_child(report[1]);
        if (dup2(terminal, 0) < 0 || dup2(terminal, 1) < 0 || dup2(terminal, 2) < 0) fail_in_child(report[1]);
        if (terminal > 2) close(terminal);
        /* Every other descriptor the server holds (sockets, other sessions' ptys) stays out of the child. */
        int keep = report[1];
        close_all_from(3, keep);
        if (memory_limit_bytes > 0) {
            struct rlimit limit = {(rlim_t)memory_limit_bytes, (rlim_t)memory_limit_bytes};
            if (setrlimit(RLIMIT_AS, &limit) != 0) fail_in_child(keep);
        }
        execve(path, argv, envp);
        fail_in_child(keep);
    }

    close(terminal);
    close(report[1]);
    int child_error = 0;
    ssize_t got;
    do {
        got = read(report[0], &child_error, sizeof child_error);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof child_error) {
        /* exec failed: reap the child and say why. */
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        close(controller);
        errno = child_error;
        return -1;
    }
    int flags = fcntl(controller, F_GETFL);
    fcntl(controller, F_SETFL, flags | O_NONBLOCK);
    fcntl(controller, F_SETFD, FD_CLOEXEC);
    *controller_fd = controller;
    return pid;
}

int cpty_resize(int controller_fd, unsigned short columns, unsigned short rows) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    size.ws_col = columns;
    size.ws_row = rows;
    return ioctl(controller_fd, TIOCSWINSZ, &size);
}
