#include "CTermSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* Written once by cts_wake_pipe_open before any handler is installed; read by handlers. */
static volatile sig_atomic_t wake_read_fd = -1;
static volatile sig_atomic_t wake_write_fd = -1;

static struct sigaction previous_winch;
static volatile sig_atomic_t resize_installed = 0;

static const int termination_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define TERMINATION_COUNT ((int)(sizeof termination_signals / sizeof termination_signals[0]))
static struct sigaction previous_termination[TERMINATION_COUNT];
static volatile sig_atomic_t termination_installed = 0;

static void write_byte(unsigned char byte) {
    int saved = errno;
    int fd = wake_write_fd;
    if (fd >= 0) {
        /* A full pipe already guarantees a pending wake-up: dropping the byte is fine. */
        ssize_t ignored = write(fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

static int set_flags(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    int fdfl = fcntl(fd, F_GETFD);
    if (fdfl < 0 || fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC) < 0) return -1;
    return 0;
}

int cts_wake_pipe_open(void) {
    if (wake_read_fd >= 0) return wake_read_fd;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    if (set_flags(fds[0]) != 0 || set_flags(fds[1]) != 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    wake_write_fd = fds[1];
    wake_read_fd = fds[0];
    return fds[0];
}

int cts_wake_read_fd(void) { return wake_read_fd; }

static void on_winch(int sig, siginfo_t *info, void *context) {
    if (previous_winch.sa_flags & SA_SIGINFO) {
        if (previous_winch.sa_sigaction != NULL) previous_winch.sa_sigaction(sig, info, context);
    } else if (previous_winch.sa_handler != SIG_DFL && previous_winch.sa_handler != SIG_IGN
               && previous_winch.sa_handler != NULL) {
        previous_winch.sa_handler(sig);
    }
    write_byte(CTS_BYTE_RESIZE);
}

int cts_install_resize_handler(void) {
    if (resize_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_winch;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGWINCH, &action, &previous_winch) != 0) return -1;
    resize_installed = 1;
    return 0;
}

static void on_termination(int sig) { write_byte((unsigned char)sig); }

int cts_install_termination_handlers(void) {
    if (termination_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_termination;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < TERMINATION_COUNT; i++) {
        if (sigaction(termination_signals[i], &action, &previous_termination[i]) != 0) {
            int saved = errno;
            for (int j = 0; j < i; j++) sigaction(termination_signals[j], &previous_termination[j], NULL);
            errno = saved;
            return -1;
        }
    }
    termination_installed = 1;
    return 0;
}

void cts_restore_signal_handlers(void) {
    if (resize_installed) {
        sigaction(SIGWINCH, &previous_winch, NULL);
        resize_installed = 0;
    }
    if (termination_installed) {
        for (int i = 0; i < TERMINATION_COUNT; i++) sigaction(termination_signals[i], &previous_termination[i], NULL);
        termination_installed = 0;
    }
}
