/* Shared by the libc model's files. */
#ifndef PSYCHIC_MODEL_H
#define PSYCHIC_MODEL_H

/* Every model definition yields to the program's own. */
#define MODEL __attribute__((weak))

#endif
