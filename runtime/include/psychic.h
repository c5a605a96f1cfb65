/* psychic.h - output annotations for differential testing.
 *
 * psychic_output(name, value) records VALUE as the output NAME of the current
 * path. Revisions whose recorded values differ on the same input behave
 * differently, even when nothing they print differs. Natively, annotations are
 * appended to the file named by $PSYCHIC_ANNOTATIONS (if set), one line each:
 * "NAME SIZE HEXBYTES", bytes in memory order.
 */
#ifndef PSYCHIC_H
#define PSYCHIC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void psychic_output_bytes(const char *name, const void *addr, size_t nbytes);

/* VALUE is evaluated once; any scalar or struct type works. */
#define psychic_output(name, value)                                            \
  do {                                                                         \
    __typeof__(value) psychic_output_value_ = (value);                         \
    psychic_output_bytes((name), &psychic_output_value_,                       \
                         sizeof psychic_output_value_);                        \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* PSYCHIC_H */
