/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit: the modules holding the commands that need large libraries
 * (modules.c). */
#ifndef TRACEKIT_TOOLS_MODULES_H
#define TRACEKIT_TOOLS_MODULES_H

/* The module tk-NAME.so, loaded once (NULL if it cannot be). */
void *tk_cli_module(const char *name);

/* Why the last module could not be loaded. */
const char *tk_cli_module_error(void);

#endif
