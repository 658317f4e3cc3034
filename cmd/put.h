/* SPDX-License-Identifier: GPL-2.0-only */
/* Fast decimal formatting for the per-record outputs (replay_series.c). */
#ifndef BQLTOOL_CMD_PUT_H
#define BQLTOOL_CMD_PUT_H

#include <stdint.h>

/* decimal digits of @v at @p (at most 20); returns the end */
char *put_u64(char *p, uint64_t v);

#endif
