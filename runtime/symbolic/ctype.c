/* <ctype.h> in the C locale. glibc's macros index the tables behind
 * __ctype_b_loc, __ctype_toupper_loc and __ctype_tolower_loc, so those tables
 * are the model; the functions read them too. Entries -128..255 are valid. */
#define __NO_CTYPE 1 /* functions, not glibc's macros */
#include <ctype.h>
#include <stdint.h>

#include "model.h"

#define U _ISupper
#define L _ISlower
#define A _ISalpha
#define D _ISdigit
#define X _ISxdigit
#define S _ISspace
#define P _ISprint
#define G _ISgraph
#define B _ISblank
#define C _IScntrl
#define T _ISpunct
#define N _ISalnum

#define UPPER (U | A | N | P | G)
#define UPPERX (UPPER | X)
#define LOWER (L | A | N | P | G)
#define LOWERX (LOWER | X)
#define DIGIT (D | X | N | P | G)
#define PUNCT (T | P | G)

static const unsigned short class_table[384] = {
    /* -128..-1: nothing in the C locale */
    [128 + '\0'] = C, C, C, C, C, C, C, C, C,
    [128 + '\t'] = C | S | B,
    [128 + '\n'] = C | S, C | S, C | S, C | S,
    [128 + 14] = C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, C,
    [128 + ' '] = S | P | B,
    [128 + '!'] = PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT,
    PUNCT, PUNCT,
    [128 + '0'] = DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT, DIGIT,
    [128 + ':'] = PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT,
    [128 + 'A'] = UPPERX, UPPERX, UPPERX, UPPERX, UPPERX, UPPERX,
    [128 + 'G'] = UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER,
    UPPER, UPPER, UPPER, UPPER, UPPER, UPPER, UPPER,
    [128 + '['] = PUNCT, PUNCT, PUNCT, PUNCT, PUNCT, PUNCT,
    [128 + 'a'] = LOWERX, LOWERX, LOWERX, LOWERX, LOWERX, LOWERX,
    [128 + 'g'] = LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER,
    LOWER, LOWER, LOWER, LOWER, LOWER, LOWER, LOWER,
    [128 + '{'] = PUNCT, PUNCT, PUNCT, PUNCT,
    [128 + 127] = C,
    /* 128..255: nothing in the C locale */
};

/* Case maps: a-z and A-Z swap; -128..-2 map to c + 256 (glibc's tables treat
 * a negative char as its unsigned byte); everything else, EOF too, to itself.
 * Built at first use: C has no range initialisers. */
static int32_t upper_table[384], lower_table[384];

static void fill_case_tables(void) {
  static int filled;
  if (filled)
    return;
  filled = 1;
  for (int c = -128; c < 256; c++) {
    int byte = c < -1 ? c + 256 : c;
    upper_table[c + 128] = toupper(byte);
    lower_table[c + 128] = tolower(byte);
  }
}

static const unsigned short *class_ptr = class_table + 128;
static const int32_t *upper_ptr = upper_table + 128;
static const int32_t *lower_ptr = lower_table + 128;

MODEL const unsigned short **__ctype_b_loc(void) { return &class_ptr; }

MODEL const int32_t **__ctype_toupper_loc(void) {
  fill_case_tables();
  return &upper_ptr;
}

MODEL const int32_t **__ctype_tolower_loc(void) {
  fill_case_tables();
  return &lower_ptr;
}

/* glibc returns the masked bit, not 1, and programs may print it. EOF (-1) and
 * -128..255 are in the table; other values have no class. */
static int has(int c, unsigned short bits) { return c >= -128 && c < 256 ? class_table[c + 128] & bits : 0; }

MODEL int isalnum(int c) { return has(c, N); }
MODEL int isalpha(int c) { return has(c, A); }
MODEL int isblank(int c) { return has(c, B); }
MODEL int iscntrl(int c) { return has(c, C); }
MODEL int isdigit(int c) { return has(c, D); }
MODEL int isgraph(int c) { return has(c, G); }
MODEL int islower(int c) { return has(c, L); }
MODEL int isprint(int c) { return has(c, P); }
MODEL int ispunct(int c) { return has(c, T); }
MODEL int isspace(int c) { return has(c, S); }
MODEL int isupper(int c) { return has(c, U); }
MODEL int isxdigit(int c) { return has(c, X); }
MODEL int isascii(int c) { return (c & ~0x7f) == 0; }
MODEL int toascii(int c) { return c & 0x7f; }
MODEL int toupper(int c) {
  if (c >= -128 && c < -1)
    c += 256;
  return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}
MODEL int tolower(int c) {
  if (c >= -128 && c < -1)
    c += 256;
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}
