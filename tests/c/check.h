/* check.h - the C tests' one check: counts what passed, says what failed
 * (file and line), for main to report. */
#ifndef ANIM_TEST_CHECK_H
#define ANIM_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, what)                                             \
  do {                                                                \
    if (cond) passed++;                                               \
    else { failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what); } \
  } while (0)

#endif
