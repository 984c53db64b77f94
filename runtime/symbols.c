/*
 * symbols.c - function names from addresses (symbols.h): dladdr first,
 * which knows the dynamic symbol table only, then the object's own ELF
 * symbol table (.symtab), which also holds its static functions; a
 * program's task functions are often static, and an OpenMP compiler's
 * outlined functions always are.  Each object's table is read once (the
 * file mapped, its function symbols sorted by address) and kept for the
 * life of the process; a lookup is then a binary search.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

#if __SIZEOF_POINTER__ == 8
#define ELF_CLASS_OWN ELFCLASS64
#else
#define ELF_CLASS_OWN ELFCLASS32
#endif

struct sym {
    uintptr_t addr, size;   /* in the object's own addresses (before the load bias) */
    const char *name;       /* in the mapped file */
};

/* One object's function symbols; nsyms 0 when it has no .symtab. */
struct objsyms {
    struct objsyms *next;
    const struct link_map *lm;
    struct sym *syms;
    size_t nsyms;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct objsyms *objects;

static int by_addr(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Reads path's .symtab functions into o (nothing on any failure: the
 * caller falls back to object+offset). */
static void load(struct objsyms *o, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    const ElfW(Ehdr) *eh = (const void *)m;
    int keep = 0;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELF_CLASS_OWN
        || eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff == 0
        || eh->e_shoff > size || (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
        goto out;
    const ElfW(Shdr) *sh = (const void *)(m + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum
            || sh[i].sh_entsize != sizeof(ElfW(Sym)))
            continue;
        const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset
            || strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
            break;
        const ElfW(Sym) *s = (const void *)(m + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *s, k = 0;
        const char *names = (const char *)(m + strs->sh_offset);
        struct sym *v = malloc((n ? n : 1) * sizeof *v);
        if (!v)
            break;
        for (size_t j = 0; j < n; j++) {
            int type = ELF64_ST_TYPE(s[j].st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[j].st_shndx == SHN_UNDEF
                || s[j].st_value == 0 || s[j].st_name >= strs->sh_size)
                continue;
            const char *nm = names + s[j].st_name;
            if (!memchr(nm, '\0', strs->sh_size - s[j].st_name) || !nm[0])
                continue;
            v[k++] = (struct sym){ (uintptr_t)s[j].st_value, (uintptr_t)s[j].st_size, nm };
        }
        if (k == 0) {
            free(v);
            break;
        }
        qsort(v, k, sizeof *v, by_addr);
        o->syms = v;
        o->nsyms = k;
        keep = 1;   /* the names stay in the mapping */
        break;
    }
out:
    if (!keep)
        munmap((void *)m, size);
}

static const struct objsyms *object_of(const struct link_map *lm)
{
    struct objsyms *o;
    for (o = objects; o; o = o->next)
        if (o->lm == lm)
            return o;
    o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->lm = lm;
    /* the main program's link map has no name: its file is /proc/self/exe */
    load(o, lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe");
    o->next = objects;
    objects = o;
    return o;
}

/* The function of o at (unbiased) address a, or NULL. */
static const char *lookup(const struct objsyms *o, uintptr_t a)
{
    size_t lo = 0, hi = o->nsyms;
    while (lo < hi) {   /* the first symbol above a */
        size_t mid = lo + (hi - lo) / 2;
        if (o->syms[mid].addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct sym *s = &o->syms[lo - 1];
    return a == s->addr || a - s->addr < s->size ? s->name : NULL;
}

const char *lc_symbol_name(const void *fn, int full, char *buf, size_t len)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!fn || !dladdr1(fn, &di, (void **)&lm, RTLD_DL_LINKMAP)) {
        snprintf(buf, len, "task@%p", fn);
        return buf;
    }
    if (di.dli_sname && di.dli_saddr == fn) {
        snprintf(buf, len, "%s", di.dli_sname);
        return buf;
    }
    if (lm) {
        pthread_mutex_lock(&lock);
        const struct objsyms *o = object_of(lm);
        const char *name = o ? lookup(o, (uintptr_t)fn - (uintptr_t)lm->l_addr) : NULL;
        if (name)
            snprintf(buf, len, "%s", name);
        pthread_mutex_unlock(&lock);
        if (name)
            return buf;
    }
    if (di.dli_sname) {   /* inside a dynamic symbol (no table to say better) */
        snprintf(buf, len, "%s", di.dli_sname);
        return buf;
    }
    /* stripped: where it is, for addr2line (with separate debug info) */
    const char *obj = di.dli_fname && !full ? strrchr(di.dli_fname, '/') : NULL;
    char abs[PATH_MAX];
    const char *path = di.dli_fname && di.dli_fname[0] ? di.dli_fname : "?";
    if (full && path[0] != '/' && realpath(path, abs))   /* the program, as it was started */
        path = abs;
    snprintf(buf, len, "%s+0x%lx", obj ? obj + 1 : path,
             (unsigned long)((uintptr_t)fn - (uintptr_t)di.dli_fbase));
    return buf;
}
