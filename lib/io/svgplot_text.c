// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chart's text: measured with the advance widths of DejaVu Sans (the
 * font the SVG asks for; Bitstream Vera Sans has the same metrics), so
 * that the layout knows how wide each text is without a font library,
 * the same on every machine (the output stays byte-for-byte the same),
 * and wrapped or shortened to fit.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/io/esc.h"
#include "lib/io/svgplot.h"
#include "lib/io/svgplot_int.h"

/*
 * Advance widths of DejaVu Sans 2.37 (Book) for U+0020..U+007E in font
 * units (2048 an em), from its hmtx table.
 */
static const unsigned short dejavu_sans[95] = {
	651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,
	2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,
	1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,
	1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,
	1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
};
#define EM	2048

/* font units of the @len bytes at @s */
static unsigned long table_units(const char *s, size_t len)
{
	unsigned long w = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			w += dejavu_sans[c - 0x20];
		else if ((c & 0xc0) != 0x80)
			w += EM;	/* a character beyond ASCII: an em */
	}
	return w;
}

double svgplot_text_width(const char *s, double size)
{
	return (double)table_units(s, strlen(s)) * size / EM;
}

/*
 * The width of the @len bytes at @s in font units at @size: the table's
 * whole units without @ft (the SVG's bytes depend on them), else @ft's
 * pixels scaled to units.
 */
static double units_at(const struct sp_font *ft, const char *s, size_t len, double size)
{
	if (!ft)
		return (double)table_units(s, len);
	return ft->width(ft, s, len, size) * EM / size;
}

double sp_text_w(const struct sp_font *ft, const char *s, double size)
{
	return units_at(ft, s, strlen(s), size) * size / EM;
}

char *sp_printed(const char *s)
{
	size_t n = esc_text(NULL, 0, s ? s : "") + 1;
	char *t = malloc(n);

	if (t)
		esc_text(t, n, s ? s : "");
	return t;
}

void sp_put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

/* the byte after the character at @s */
static const char *next_char(const char *s)
{
	if (*s)
		s++;
	while ((*s & 0xc0) == 0x80)
		s++;
	return s;
}

#define ELLIPSIS	"\xe2\x80\xa6"	/* U+2026, an em wide in DejaVu Sans */

/* append [@s, @e) and a NUL (and @tail) to @buf at *@at; false when full */
static bool put_line(char *buf, size_t n, size_t *at, const char *s, const char *e,
		     const char *tail)
{
	size_t len = (size_t)(e - s), tl = strlen(tail);

	if (*at + len + tl + 1 > n)
		return false;
	memcpy(buf + *at, s, len);
	memcpy(buf + *at + len, tail, tl);
	*at += len + tl;
	buf[(*at)++] = '\0';
	return true;
}

#define units(s, len)	units_at(ft, s, len, size)

int sp_wrap(const struct sp_font *ft, const char *s, double size, double width, int maxlines,
	    char *buf, size_t n)
{
	double room = width > 0 ? (double)(unsigned long)(width * EM / size) : 0;
	size_t at = 0;
	int lines = 0;

	while (*s == ' ')
		s++;
	do {
		const char *end = s, *e, *comma = NULL;

		if (lines == maxlines - 1 && units(s, strlen(s)) > room) {
			/* the last line: as much as fits, then an ellipsis */
			double ell = units(ELLIPSIS, strlen(ELLIPSIS));

			for (e = s; *e && units(s, (size_t)(next_char(e) - s)) + ell <= room;)
				e = next_char(e);
			while (e > s && e[-1] == ' ')
				e--;
			return put_line(buf, n, &at, s, e, ELLIPSIS) ? lines + 1 : 0;
		}
		/* whole words while they fit, rather up to a comma */
		for (e = s; *e;) {
			const char *w = e;

			while (*w == ' ')
				w++;
			while (*w && *w != ' ')
				w++;
			if (units(s, (size_t)(w - s)) > room) {
				if (comma && units(s, (size_t)(comma - s)) * 2 >= room)
					end = comma;
				break;
			}
			end = e = w;
			if (w[-1] == ',')
				comma = w;
		}
		if (end == s) {
			/* a word wider than the line: cut it where it must */
			end = next_char(s);
			while (*end && *end != ' ' && units(s, (size_t)(next_char(end) - s)) <= room)
				end = next_char(end);
		}
		if (!put_line(buf, n, &at, s, end, ""))
			return 0;
		lines++;
		s = end;
		while (*s == ' ')
			s++;
	} while (*s);
	return lines;
}
#undef units
