// SPDX-License-Identifier: GPL-2.0-only
/* struct bql_ctx defaults. */
#include <string.h>

#include "lib/io/ctx.h"

void bql_ctx_init(struct bql_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->color_opt = BQL_COLOR_AUTO;
	c->sysfs_root = "/sys";
	c->out = stdout;
}
