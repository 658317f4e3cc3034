/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Escaping of text that comes from outside (device names, sysfs contents,
 * profile keys, trace queue names) before it reaches a terminal or a JSON
 * document. Names are bytes to the kernel: a device may be called
 * "\e[2J..." or hold U+009B (a C1 CSI) or invalid UTF-8.
 *
 * Human output (esc_text*): printable UTF-8 passes; a backslash becomes
 * "\\"; \n \t \r become "\n" "\t" "\r"; other C0 controls, DEL and bytes
 * that are not valid UTF-8 become "\xHH"; C1 controls and the invisible
 * direction/line-separator characters (U+061C, U+200E-200F, U+2028-202E,
 * U+2066-2069, U+FEFF) become "\uHHHH". The result is one line of text that
 * shows what the bytes were.
 *
 * JSON (esc_json*): the result is valid UTF-8 JSON with no raw control
 * character: C0/DEL/C1 and the characters above become \uHHHH escapes, and
 * a byte 0xHH that is not valid UTF-8 becomes \uefHH (U+EF80..U+EFFF, a
 * private-use code point per byte, as OPTU-8 maps them), so that two names
 * that differ in their invalid bytes stay two names (U+FFFD for every one
 * made "b\xfe" and "b\xff" the same string).
 */
#ifndef BQLTOOL_LIB_ESC_H
#define BQLTOOL_LIB_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* the code point that stands for the invalid byte @b (0x80..0xff) in JSON */
#define ESC_JSON_BYTE(b)	(0xef00u | (unsigned char)(b))

/* the longest escape of one input byte, in bytes (JSON "\u00XX") */
#define ESC_MAX_PER_BYTE	6

/* the offset of the first byte of @s (@len bytes) that is not valid UTF-8, or @len */
size_t esc_utf8_valid(const char *s, size_t len);
/*
 * esc_bqlt_name - @s as a queue name in a bqltrace (bqltrace(5)): every
 * byte of what esc_text() would escape (controls, DEL, C1, invalid UTF-8,
 * the invisible direction characters, the backslash) and of a blank or
 * '=' as "\xHH", the rest as it is; the trace parser reads it back to the
 * same bytes, and the trace is clean text. @dst as esc_text() (4 *
 * strlen(@s) + 1 always suffices); returns the full length.
 */
size_t esc_bqlt_name(char *dst, size_t n, const char *s);
/* true when @s (NUL-terminated) needs no escaping for a terminal */
bool esc_text_clean(const char *s);
/*
 * esc_text - the human form of @s into @dst (@n bytes, always terminated
 * when @n > 0, never cut inside an escape). Returns the length of the full
 * escaped form (as snprintf does); 4 * strlen(@s) + 1 always suffices.
 */
size_t esc_text(char *dst, size_t n, const char *s);
/* esc_text_mem - the same for @len bytes of @s (NULs are escaped too) */
size_t esc_text_mem(char *dst, size_t n, const char *s, size_t len);
/* esc_text_fputs - write the human form of @s to @f; 0 or EOF */
int esc_text_fputs(const char *s, FILE *f);
/* esc_text_width - terminal columns of the human form of @s */
size_t esc_text_width(const char *s);

/*
 * esc_json_fputs - write serialized JSON @json (as json-c prints it: any
 * byte >= 0x80 or DEL is inside a string) to @f with invalid bytes made
 * \uefHH (ESC_JSON_BYTE) and C1/DEL/direction characters made \uHHHH
 * escapes. 0 or EOF.
 */
int esc_json_fputs(const char *json, FILE *f);
/* esc_json_dup - the same into a malloc'd string (NULL: out of memory) */
char *esc_json_dup(const char *json);
/*
 * esc_json_str - @s as a complete JSON string literal with its quotes into
 * @dst (@n bytes; ESC_MAX_PER_BYTE * strlen(@s) + 3 always suffices).
 * Returns the length of the literal (as snprintf).
 */
size_t esc_json_str(char *dst, size_t n, const char *s);

/*
 * esc_json_c_str - the @len bytes of @s as the JSON string literal, quotes
 * included, that json-c prints for them (JSON_C_TO_STRING_NOSLASHESCAPE)
 * as esc_json_fputs() then corrects it: the bytes lib/out.c would print.
 * @dst needs ESC_MAX_PER_BYTE * @len + 2 bytes; no NUL is added. Returns
 * the length.
 */
size_t esc_json_c_str(char *dst, const char *s, size_t len);

/*
 * esc_prom_fputs - @s as a Prometheus label value (without the quotes):
 * \\, \" and \n as the exposition format wants, and every other control
 * or invalid byte in its human form with the backslash doubled, so the
 * label holds the text "\x1b". 0 or EOF.
 */
int esc_prom_fputs(const char *s, FILE *f);

/*
 * esc_xml_fputs - @s as XML character data or attribute text: & < > " '
 * as entities, every control or invalid byte in its human form (XML 1.0
 * allows no C0 control, not even as a reference). 0 or EOF.
 */
int esc_xml_fputs(const char *s, FILE *f);

#endif
