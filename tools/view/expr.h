/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit browsers (terminal and web): address expressions.
 *
 * The `m`, `p` and `P` prompts take expressions such as `sp+0x10`,
 * `(x1 + 8) * 2` or `main+4`: numbers, names (registers or ELF symbols,
 * resolved by a callback), unary and binary + and -, *, and parentheses.
 * Arithmetic wraps modulo 2^64.
 *
 * Numbers: `0x` prefix is hex; a number with a leading 0 or containing a
 * hex letter (`8004`-style addresses copied from a trace usually have
 * one: `00008004`, `2109bc`) is hex too; anything else is decimal.
 *
 * This module knows nothing of the index or of ncurses, so it has its own
 * unit test (tests/browse/test_expr.c).
 */
#ifndef TRACEKIT_VIEW_EXPR_H
#define TRACEKIT_VIEW_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* Resolve a name.  Returns 0 and sets *value, or non-zero after writing a
 * reason ("r3 is unknown here", "no symbol 'foo'") into err. */
typedef int (*tk_expr_name_fn)(void *ctx, const char *name, size_t len,
			       uint64_t *value, char *err, size_t errlen);

/*
 * Evaluate text.  Returns 0 and sets *value, or -1 with a message in err
 * (e.g. "expected ')' at column 7").  names may be NULL: every name is then
 * an error.
 */
int tk_expr_eval(const char *text, tk_expr_name_fn names, void *ctx,
		 uint64_t *value, char *err, size_t errlen);

#endif
