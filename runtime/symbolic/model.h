/* Shared by the libc model's files. */
#ifndef PSYCHIC_MODEL_H
#define PSYCHIC_MODEL_H

/* Every model definition yields to the program's own. */
#define MODEL __attribute__((weak))

/* scanf's conversion of the float text it gathered (stdlib.c, for posix.c):
 * glibc's strtof, strtod or strtold by `size` (4, 8, 16) into `out`; 0 when
 * nothing converts, and then nothing is stored. */
int __psychic_scan_float(const char *text, unsigned size, void *out);

/* Ends the path as a call psychic does not model, named by `what`, at the
 * program's call (an engine special, as an undefined function's call). */
void __psychic_unmodelled(const char *what) __attribute__((noreturn));

#endif
