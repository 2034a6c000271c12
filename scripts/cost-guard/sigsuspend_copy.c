// Preloaded into `handover` under valgrind 3.19 by scripts/cost-guard/guard.py, never built into
// the server. libdispatch's main thread calls sigsuspend() with a mask in read-only memory;
// valgrind 3.19's wrapper writes into that mask and crashes. This passes a copy on the stack.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
