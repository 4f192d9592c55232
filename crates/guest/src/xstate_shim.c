/*
 * Preloaded into linux.uml (LD_PRELOAD) by netlab-guest, see
 * crates/guest/src/xstate.rs.
 *
 * Debian's user-mode-linux 6.1 saves and restores a guest thread's FPU
 * state with PTRACE_GETREGSET / PTRACE_SETREGSET (NT_X86_XSTATE) through a
 * buffer of 832 bytes: the x87/SSE area, the XSAVE header and the AVX
 * upper halves. The host kernel accepts a SETREGSET only with its whole
 * standard-format XSAVE area (fpu_user_cfg.max_size; EFAULT otherwise),
 * which is 832 bytes only on CPUs without AVX-512 or AMX. On any other
 * host every guest dies at its first process ("ptrace set fp regs failed,
 * errno = 14").
 *
 * This shim gives UML what it expects and the host what it needs: it keeps
 * one full-size shadow area per UML register buffer (the buffer's address
 * identifies the guest thread). GETREGSET reads the whole area into the
 * shadow and hands UML its first bytes; SETREGSET lays UML's bytes over the
 * shadow and writes the whole area back. Each guest thread thus keeps its
 * own AVX-512 and AMX state too, which UML alone never switched. Every
 * other ptrace request goes to libc's ptrace untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

/* Larger than any XSAVE area (AMX included, about 11 KiB). */
#define PROBE_SIZE (64 * 1024)

typedef long (*ptrace_fn)(enum __ptrace_request request, ...);

struct shadow {
    void *key;        /* UML's buffer */
    size_t len;       /* bytes valid in `full` (the host's area size), 0 = none yet */
    unsigned char *full;
    struct shadow *next;
};

static struct shadow *shadows;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static ptrace_fn real_ptrace(void)
{
    static ptrace_fn f;
    if (!f)
        f = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");
    return f;
}

static struct shadow *shadow_of(void *key)
{
    struct shadow *s;
    for (s = shadows; s; s = s->next)
        if (s->key == key)
            return s;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->full = malloc(PROBE_SIZE);
    if (!s->full) {
        free(s);
        return NULL;
    }
    s->key = key;
    s->next = shadows;
    shadows = s;
    return s;
}

/* Reads pid's whole area into s; the kernel writes the real size back. */
static long read_full(ptrace_fn p, pid_t pid, struct shadow *s)
{
    struct iovec whole = { s->full, PROBE_SIZE };
    long r = p(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &whole);
    if (r == 0)
        s->len = whole.iov_len;
    return r;
}

static long xstate(ptrace_fn p, enum __ptrace_request request, pid_t pid, struct iovec *iov)
{
    struct shadow *s;
    long r;
    pthread_mutex_lock(&lock);
    s = shadow_of(iov->iov_base);
    if (!s) {
        pthread_mutex_unlock(&lock);
        errno = ENOMEM;
        return -1;
    }
    if (request == PTRACE_GETREGSET) {
        r = read_full(p, pid, s);
        if (r == 0) {
            size_t n = iov->iov_len < s->len ? iov->iov_len : s->len;
            memcpy(iov->iov_base, s->full, n);
            iov->iov_len = n;
        }
    } else {
        /* A buffer never read through us (a new thread): the rest of its
         * area starts as the host process has it now. */
        r = s->len ? 0 : read_full(p, pid, s);
        if (r == 0) {
            if (iov->iov_len >= s->len) {
                r = p(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, iov);
            } else {
                struct iovec whole = { s->full, s->len };
                memcpy(s->full, iov->iov_base, iov->iov_len);
                r = p(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, &whole);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

long ptrace(enum __ptrace_request request, ...)
{
    va_list ap;
    pid_t pid;
    void *addr, *data;
    ptrace_fn p = real_ptrace();

    va_start(ap, request);
    pid = va_arg(ap, pid_t);
    addr = va_arg(ap, void *);
    data = va_arg(ap, void *);
    va_end(ap);
    if (!p) {
        errno = ENOSYS;
        return -1;
    }
    if ((request == PTRACE_GETREGSET || request == PTRACE_SETREGSET) &&
        (unsigned long)addr == NT_X86_XSTATE && data)
        return xstate(p, request, pid, (struct iovec *)data);
    return p(request, pid, addr, data);
}
