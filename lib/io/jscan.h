/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What json-c does not check in JSON that people write: duplicate keys
 * (json-c keeps the last silently) and integers too large for 64 bits
 * (json-c saturates 99999999999999999999 to 18446744073709551615), \u0000
 * in a string (a C string of it ends there, "eth0\u0000x" is eth0), what
 * json-c takes beyond JSON even when strict ('single quotes', NaN,
 * Infinity) and text that is not UTF-8. One linear pass over text json-c has accepted.
 */
#ifndef BQLTOOL_LIB_JSCAN_H
#define BQLTOOL_LIB_JSCAN_H

#include <stddef.h>

#include "dql/err.h"

/*
 * jscan_check - 0, or -EINVAL with @e naming the JSON path, the key or the
 * number as written, and the line and column: 'devices.eth0.all: duplicate
 * key "limit_max" at line 7, column 9 (first at line 6, column 9)'.
 * -ENOMEM when out of memory. @text must be JSON json-c has parsed.
 */
int jscan_check(const char *text, size_t len, struct bql_err *e);

#endif
