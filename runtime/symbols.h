/*
 * symbols.h - the name of a task's function, for every output that shows
 * one: the OTF2 trace's regions and the LOCUS_DAG graph (trace/), and the
 * simulator's choice of a task model (sim/, through lc_sim_config).
 */
#ifndef LC_SYMBOLS_H
#define LC_SYMBOLS_H

#include <stddef.h>

/*
 * Writes into buf (len > 0) and returns it: the symbol dladdr finds for
 * fn; else the function the ELF symbol table (.symtab) of the object
 * dladdr names holds at fn (static functions, OpenMP outlined functions:
 * what addr2line and tools/locus-trace would find), read once per object;
 * else, the table stripped, "object+0xoffset" (the object's full path with
 * full set, its base name otherwise); else "task@<fn>".  Thread-safe.
 */
const char *lc_symbol_name(const void *fn, int full, char *buf, size_t len);

#endif /* LC_SYMBOLS_H */
