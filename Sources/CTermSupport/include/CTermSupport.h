/*
 * CTermSupport: async-signal-safe plumbing between signals and the main
 * dispatch queue.
 *
 * One non-blocking, close-on-exec "wake pipe" carries one byte per event:
 *   CTS_BYTE_RESIZE  SIGWINCH arrived (ncurses' own handler was chained first)
 *   the signal number for SIGINT / SIGTERM / SIGHUP
 * The Swift side reads the pipe from a DispatchSourceRead on the main queue.
 * Signal handlers only write(2) to the pipe; they never touch ncurses.
 */
#ifndef CARDEALER_CTERMSUPPORT_H
#define CARDEALER_CTERMSUPPORT_H

#define CTS_BYTE_RESIZE 82 /* 'R' */

/* Creates the wake pipe once; returns its read end, or -1 with errno set. */
int cts_wake_pipe_open(void);

/* The read end of the wake pipe, or -1 if it is not open. */
int cts_wake_read_fd(void);

/*
 * Installs a SIGWINCH handler that first calls whatever handler was installed
 * before (ncurses' after newterm) and then writes CTS_BYTE_RESIZE.
 * Returns 0 on success, -1 with errno set.
 */
int cts_install_resize_handler(void);

/*
 * Installs handlers for SIGINT, SIGTERM and SIGHUP that write the signal
 * number to the pipe and do nothing else. Returns 0 on success, -1 otherwise.
 */
int cts_install_termination_handlers(void);

/* Puts back the handlers that were in place before the install calls above. */
void cts_restore_signal_handlers(void);

#endif
