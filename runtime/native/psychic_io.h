/* Whole reads and writes for the servers' protocols (psychic_confirm.c,
 * psychic_fuzz.c), restarted where a signal interrupts them. Defined in
 * psychic_confirm.c, part of the replay library every native build links. */
#ifndef PSYCHIC_IO_H
#define PSYCHIC_IO_H

#include <stddef.h>

/* 1 once `len` bytes came; 0 at the end of input or on an error. */
int __psychic_read_all(int fd, void *buf, size_t len);
/* 1 once `len` bytes went; 0 on an error. */
int __psychic_write_all(int fd, const void *buf, size_t len);

#endif
