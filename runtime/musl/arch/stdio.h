/* Ahead of musl's internal stdio.h, which names the standard streams as
 * its own FILE objects: psychic's are the libc model's, which the engine
 * writes by address, reached as the public `stdin`, `stdout`, `stderr`. */
#include_next <stdio.h>

#undef stdin
#undef stdout
#undef stderr
