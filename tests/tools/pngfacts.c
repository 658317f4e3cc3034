// SPDX-License-Identifier: GPL-2.0-only
/*
 * pngfacts: layout facts of a plot rendered as a PNG (replay --plot x.png,
 * sim --plot x.png), for the tests, read from its pixels through cairo:
 *   "canvas W H"
 *   "border clean" when every pixel within BORDER of the edges is the
 *	white background (no text or line runs off the canvas), else a FAIL;
 *   "panel X0 Y0 X1 Y1" for every panel: a closed frame of the frame grey
 *	(#555555), its four sides whole; a top edge without its bottom (or a
 *	side broken) is a FAIL;
 *   "colour #RRGGBB N" for each colour of the palette (and the total's
 *	grey) that N pixels have, within NEAR (lines 1.5 or 2 pixels wide
 *	cover whole pixels: a queue drawn has some; the palette's colours are
 *	further apart than that, and antialiased edges blend far from them);
 *   "colours N": how many of the palette's colours have at least MIN_PX.
 *   "count #RRGGBB N" for each further colour asked for (a mark's shade).
 * Exits 1 when there is a FAIL.
 *   usage: pngfacts FILE.png [#RRGGBB]...
 */
#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BORDER		4	/* pixels: the plot's margin is 12 */
#define MIN_RUN		40	/* the shortest panel edge */
#define MIN_PX		10
#define NEAR		12	/* the sum of the channels' differences */
#define FRAME		0x555555u
#define WHITE		0xffffffu

static const uint32_t palette[] = {
	0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
	0x8c564b, 0xe377c2, 0xbcbd22, 0x17becf, 0x393b79, 0x444444,
};
#define NPAL	(int)(sizeof(palette) / sizeof(palette[0]))

static const unsigned char *data;
static int w, h, stride, fails;

static uint32_t px(int x, int y)
{
	return *(const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride +
						 (size_t)x * 4) & 0xffffffu;
}

static bool near(uint32_t a, uint32_t b)
{
	int d = 0;

	for (int sh = 0; sh < 24; sh += 8)
		d += abs((int)(a >> sh & 0xff) - (int)(b >> sh & 0xff));
	return d <= NEAR;
}

struct run {
	int y, x0, x1;		/* x1 inclusive */
	bool used;
};

/* column @x from @y0 to @y1 is all frame grey */
static bool side(int x, int y0, int y1)
{
	for (int y = y0; y <= y1; y++)
		if (px(x, y) != FRAME)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	cairo_surface_t *s;
	struct run *runs = NULL;
	int nruns = 0, cap = 0, colours = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: pngfacts FILE.png [#RRGGBB]...\n");
		return 2;
	}
	s = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(s)) {
		fprintf(stderr, "pngfacts: %s: %s\n", argv[1],
			cairo_status_to_string(cairo_surface_status(s)));
		return 2;
	}
	cairo_surface_flush(s);
	data = cairo_image_surface_get_data(s);
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	stride = cairo_image_surface_get_stride(s);
	printf("canvas %d %d\n", w, h);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			if ((x >= BORDER && x < w - BORDER && y >= BORDER && y < h - BORDER) ||
			    px(x, y) == WHITE)
				continue;
			printf("FAIL: pixel %d,%d is #%06x, within %d of the edge\n", x, y,
			       (unsigned int)px(x, y), BORDER);
			fails++;
			x = w;
			y = h;
		}
	if (!fails)
		printf("border clean\n");

	/* horizontal runs of the frame's grey: panels' top and bottom edges */
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w;) {
			int a = x;

			while (x < w && px(x, y) == FRAME)
				x++;
			if (x - a >= MIN_RUN) {
				if (nruns == cap) {
					cap = cap ? 2 * cap : 64;
					runs = realloc(runs, (size_t)cap * sizeof(*runs));
					if (!runs)
						return 2;
				}
				runs[nruns++] = (struct run){ y, a, x - 1, false };
			}
			if (x == a)
				x++;
		}
	for (int i = 0; i < nruns; i++) {
		struct run *t = &runs[i];
		int j;

		if (t->used)
			continue;
		for (j = i + 1; j < nruns; j++)
			if (!runs[j].used && runs[j].x0 == t->x0 && runs[j].x1 == t->x1 &&
			    runs[j].y > t->y + 1)
				break;
		if (j == nruns) {
			printf("FAIL: an edge at y %d, x %d..%d closes no panel\n", t->y, t->x0,
			       t->x1);
			fails++;
			continue;
		}
		runs[j].used = t->used = true;
		if (!side(t->x0, t->y, runs[j].y) || !side(t->x1, t->y, runs[j].y)) {
			printf("FAIL: the panel at %d,%d has a broken side\n", t->x0, t->y);
			fails++;
		}
		printf("panel %d %d %d %d\n", t->x0, t->y, t->x1, runs[j].y);
	}
	free(runs);

	for (int c = 0; c < NPAL; c++) {
		long n = 0;

		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				n += near(px(x, y), palette[c]);
		printf("colour #%06x %ld\n", (unsigned int)palette[c], n);
		colours += c < NPAL - 1 && n >= MIN_PX;
	}
	printf("colours %d\n", colours);
	for (int i = 2; i < argc; i++) {
		uint32_t want = (uint32_t)strtoul(argv[i] + (argv[i][0] == '#'), NULL, 16);
		long n = 0;

		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				n += near(px(x, y), want);
		printf("count #%06x %ld\n", (unsigned int)want, n);
	}
	cairo_surface_destroy(s);
	return fails ? 1 : 0;
}
