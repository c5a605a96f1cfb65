/* The process state glibc's headers refer to: errno and the standard streams.
 * The engine recognises the stream objects by address. */
#include <errno.h>
#include <stdio.h>

#include "model.h"

MODEL int *__errno_location(void) {
  static int value;
  return &value;
}

static FILE streams[3];
MODEL FILE *stdin = &streams[0];
MODEL FILE *stdout = &streams[1];
MODEL FILE *stderr = &streams[2];
