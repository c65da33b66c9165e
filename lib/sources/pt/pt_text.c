/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Intel PT: texts as ptxed prints them (events, instruction classes), and
 * disassembly with capstone. */
#include <inttypes.h>
#include <string.h>

#include "pt_capstone.h"
#include "pt_impl.h"

static const char *exec_mode_name(enum pt_exec_mode m)
{
	switch (m) {
	case ptem_unknown: return "<unknown>";
	case ptem_16bit: return "16-bit";
	case ptem_32bit: return "32-bit";
	case ptem_64bit: return "64-bit";
	}
	return "<invalid>";
}

void tk_pt_event_text(const struct pt_event *ev, char *buf, size_t n)
{
	const char *nr;
	switch (ev->type) {
	case ptev_enabled:
		snprintf(buf, n, "%s", ev->variant.enabled.resumed ? "resumed" : "enabled");
		return;
	case ptev_disabled:
	case ptev_async_disabled:
		snprintf(buf, n, "disabled");
		return;
	case ptev_async_branch:
		snprintf(buf, n, "interrupt");
		return;
	case ptev_paging:
		nr = ev->variant.paging.non_root ? ", nr" : "";
		snprintf(buf, n, "paging, cr3: %016" PRIx64 "%s", ev->variant.paging.cr3, nr);
		return;
	case ptev_async_paging:
		nr = ev->variant.async_paging.non_root ? ", nr" : "";
		snprintf(buf, n, "paging, cr3: %016" PRIx64 "%s", ev->variant.async_paging.cr3, nr);
		return;
	case ptev_overflow:
		snprintf(buf, n, "overflow");
		return;
	case ptev_exec_mode:
		snprintf(buf, n, "exec mode: %s", exec_mode_name(ev->variant.exec_mode.mode));
		return;
	case ptev_tsx:
		snprintf(buf, n, "%s", ev->variant.tsx.aborted ? "aborted" :
				       ev->variant.tsx.speculative ? "begin transaction" : "committed");
		return;
	case ptev_stop:
		snprintf(buf, n, "stopped");
		return;
	case ptev_vmcs:
		snprintf(buf, n, "vmcs, base: %016" PRIx64, ev->variant.vmcs.base);
		return;
	case ptev_async_vmcs:
		snprintf(buf, n, "vmcs, base: %016" PRIx64, ev->variant.async_vmcs.base);
		return;
	case ptev_exstop:
		snprintf(buf, n, "exstop");
		return;
	case ptev_mwait:
		snprintf(buf, n, "mwait %" PRIx32 " %" PRIx32, ev->variant.mwait.hints,
			 ev->variant.mwait.ext);
		return;
	case ptev_pwre:
		snprintf(buf, n, "pwre c%u.%u%s", (ev->variant.pwre.state + 1) & 0xf,
			 (ev->variant.pwre.sub_state + 1) & 0xf, ev->variant.pwre.hw ? " hw" : "");
		return;
	case ptev_pwrx:
		snprintf(buf, n, "pwrx %s%s%sc%u (c%u)", ev->variant.pwrx.interrupt ? "int: " : "",
			 ev->variant.pwrx.store ? "st: " : "",
			 ev->variant.pwrx.autonomous ? "hw: " : "",
			 (ev->variant.pwrx.last + 1) & 0xf, (ev->variant.pwrx.deepest + 1) & 0xf);
		return;
	case ptev_ptwrite:
		snprintf(buf, n, "ptwrite: %" PRIx64, ev->variant.ptwrite.payload);
		return;
	case ptev_tick:
		snprintf(buf, n, "tick");
		return;
	case ptev_cbr:
		snprintf(buf, n, "cbr: %x", ev->variant.cbr.ratio);
		return;
	case ptev_mnt:
		snprintf(buf, n, "mnt: %" PRIx64, ev->variant.mnt.payload);
		return;
	default:
		snprintf(buf, n, "event %d", (int)ev->type);
		return;
	}
}

const char *tk_pt_iclass_name(int iclass)
{
	switch (iclass) {
	case ptic_other: return "other";
	case ptic_call: return "call";
	case ptic_return: return "return";
	case ptic_jump: return "jump";
	case ptic_cond_jump: return "cond_jump";
	case ptic_far_call: return "far_call";
	case ptic_far_return: return "far_return";
	case ptic_far_jump: return "far_jump";
	case ptic_ptwrite: return "ptwrite";
	default: return "error";
	}
}

/* One capstone handle per thread and syntax, kept for the thread's life. */
static _Thread_local struct {
	csh h[2];
	bool open[2];
} tl_cs;

int tk_pt_disasm(const uint8_t *bytes, size_t size, uint64_t ip, bool att, char *buf,
		 size_t bufsize)
{
	int s = att ? 1 : 0;
	const tk_cs_api *cs = tk_pt_capstone();
	if (!cs)
		return TK_ERR_UNSUPPORTED;
	if (!tl_cs.open[s]) {
		if (cs->open(CS_ARCH_X86, CS_MODE_64, &tl_cs.h[s]) != CS_ERR_OK)
			return TK_ERR_NOMEM;
		if (att)
			cs->option(tl_cs.h[s], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
		tl_cs.open[s] = true;
	}
	cs_insn *insn = NULL;
	if (!bytes || !size || cs->disasm(tl_cs.h[s], bytes, size, ip, 1, &insn) != 1)
		return TK_ERR_PARSE;
	int n = snprintf(buf, bufsize, "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
			 insn->op_str);
	cs->free(insn, 1);
	return n < 0 ? TK_ERR_PARSE : n;
}
