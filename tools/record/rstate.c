/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracekit record: register slots, names and the R-line diff. */
#ifdef TK_HAVE_UNICORN
#include <stdio.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "rstate.h"

/* The Thumb IT state bits of the AArch32 CPSR and the M-profile xPSR: not
 * reported, as unicorn only keeps them exact at block boundaries. */
#define PSR_IT_BITS 0x0600FC00u

static void slot(rec_regs *g, int s, int uc, int bytes, bool upper, const char *name)
{
	g->uc[s] = uc;
	g->bytes[s] = (uint8_t)bytes;
	g->upper[s] = upper;
	g->used[s] = true;
	snprintf(g->name[s], sizeof g->name[s], "%s", name);
	g->namelen[s] = (uint8_t)strlen(g->name[s]);
	g->ptr[s] = g->val[s];
	if (s + 1 > g->n)
		g->n = s + 1;
}

static const char *a32_mode_name(unsigned m)
{
	switch (m & 0x1F) {
	case 0x10: return "usr";
	case 0x11: return "fiq";
	case 0x12: return "irq";
	case 0x13: return "svc";
	case 0x16: return "mon";
	case 0x17: return "abt";
	case 0x1A: return "hyp";
	case 0x1B: return "und";
	case 0x1F: return "sys";
	default: return "unk";
	}
}

/* The PSR bits the mode text and register names depend on. */
static uint32_t mode_bits(const rec_regs *g, uint32_t psr)
{
	if (g->profile == REC_PROFILE_A64)
		return psr & 0x1F;
	if (g->profile == REC_PROFILE_M)
		return (psr & 0x1FF) != 0;
	return psr & 0x3F;
}

/* Mode text and banked register names for a PSR value. */
static void set_mode(rec_regs *g, uint32_t psr)
{
	g->mode_bits = mode_bits(g, psr);
	if (g->profile == REC_PROFILE_A64) {
		unsigned el = psr >> 2 & 3;
		bool h = psr & 1;
		g->modelen = snprintf(g->mode, sizeof g->mode, "EL%u%c_%c", el, h ? 'h' : 't',
				      el == 3 ? 's' : 'n');
		char sp[16];
		snprintf(sp, sizeof sp, "SP_EL%u", h ? el : 0);
		snprintf(g->name[A64_SP], sizeof g->name[A64_SP], "%s", sp);
		g->namelen[A64_SP] = (uint8_t)strlen(sp);
		g->state = 'O';
	} else if (g->profile == REC_PROFILE_M) {
		g->modelen = snprintf(g->mode, sizeof g->mode, "%s",
				      (psr & 0x1FF) ? "handler" : "thread");
		g->state = 'T';
	} else {
		const char *m = a32_mode_name(psr);
		const char *bank = !strcmp(m, "sys") ? "usr" : m;
		g->modelen = snprintf(g->mode, sizeof g->mode, "%s_s", m);
		g->namelen[A32_SP] = (uint8_t)snprintf(g->name[A32_SP], 16, "r13_%s", bank);
		g->namelen[A32_LR] = (uint8_t)snprintf(g->name[A32_LR], 16, "r14_%s", bank);
		g->state = (psr & 0x20) ? 'T' : 'A';
	}
}

void rec_regs_init(rec_regs *g, int profile, int fp_dregs)
{
	memset(g, 0, sizeof *g);
	g->profile = profile;
	char name[16];
	if (profile == REC_PROFILE_A64) {
		for (int i = 0; i < 31; i++) {
			int id = i < 29 ? UC_ARM64_REG_X0 + i : i == 29 ? UC_ARM64_REG_X29 : UC_ARM64_REG_X30;
			snprintf(name, sizeof name, "X%d", i);
			slot(g, A64_X0 + i, id, 8, true, name);
		}
		slot(g, A64_SP, UC_ARM64_REG_SP, 8, true, "SP_EL0");
		slot(g, A64_PSR, UC_ARM64_REG_PSTATE, 4, false, "cpsr");
		for (int i = 0; i < 32; i++) {
			snprintf(name, sizeof name, "q%d", i);
			slot(g, A64_Q0 + i, UC_ARM64_REG_Q0 + i, 16, false, name);
		}
		slot(g, A64_FPSR, UC_ARM64_REG_FPSR, 4, false, "fpsr");
		slot(g, A64_FPCR, UC_ARM64_REG_FPCR, 4, false, "fpcr");
		g->psr_slot = A64_PSR;
		g->psr_mask = 0xFFFFFFFFu;
	} else {
		for (int i = 0; i < 13; i++) {
			snprintf(name, sizeof name, "r%d", i);
			slot(g, A32_R0 + i, UC_ARM_REG_R0 + i, 4, false, name);
		}
		bool m = profile == REC_PROFILE_M;
		slot(g, A32_SP, UC_ARM_REG_SP, 4, false, m ? "MSP" : "r13_svc");
		slot(g, A32_LR, UC_ARM_REG_LR, 4, false, m ? "r14" : "r14_svc");
		slot(g, A32_PSR, m ? UC_ARM_REG_XPSR : UC_ARM_REG_CPSR, 4, false, "cpsr");
		g->psr_slot = A32_PSR;
		g->psr_mask = ~PSR_IT_BITS;
		if (fp_dregs) {
			for (int i = 0; i < fp_dregs; i++) {
				snprintf(name, sizeof name, "d%d", i);
				slot(g, A32_D0 + i, UC_ARM_REG_D0 + i, 8, false, name);
			}
			slot(g, A32_FPSCR, UC_ARM_REG_FPSCR, 4, false, "fpscr");
		}
	}
	for (int s = 0; s < g->n; s++)
		if (g->used[s])
			g->all[g->nall++] = (uint8_t)s;
	/* The initial values: the PSR first, as a Fast Model prints them. */
	g->dump[0] = (uint8_t)g->psr_slot;
	for (int i = 0, k = 1; i < g->nall; i++)
		if (g->all[i] != g->psr_slot)
			g->dump[k++] = g->all[i];
	set_mode(g, 0);
}

int rec_regs_update(rec_regs *g, struct uc_struct *uc, rec_out *o,
		    const uint8_t *slots, int n, bool force, int always)
{
	int ids[REC_NSLOTS];
	void *ptrs[REC_NSLOTS];
	for (int i = 0; i < n; i++) {
		ids[i] = g->uc[slots[i]];
		ptrs[i] = g->ptr[slots[i]];
	}
	uc_err err = uc_reg_read_batch(uc, ids, ptrs, n);
	if (err != UC_ERR_OK)
		return (int)err;

	int ps = g->psr_slot;
	uint32_t psr;
	memcpy(&psr, g->val[ps], 4);	/* as unicorn wrote it: 4 bytes */
	psr &= g->psr_mask;
	g->val[ps][0] = psr;
	if (force || mode_bits(g, psr) != g->mode_bits) {
		/* A new mode shows other banked registers: check them all. */
		if (!force && slots != g->all)
			return rec_regs_update(g, uc, o, g->all, g->nall, force, always);
		set_mode(g, psr);
	}

	for (int i = 0; i < n; i++) {
		int s = slots[i];
		uint64_t *v = g->val[s], *sh = g->shadow[s];
		if (v[0] == sh[0] && v[1] == sh[1] && !force && s != always)
			continue;
		sh[0] = v[0];
		sh[1] = v[1];
		char *p = rec_out_room(o, 120);
		p = rec_put_words(p, o->ts, (size_t)o->tslen);
		*p++ = 'R';
		*p++ = ' ';
		p = rec_put_words(p, g->name[s], g->namelen[s]);
		*p++ = ' ';
		const char *hex = g->upper[s] ? rec_hex_upper : rec_hex_lower;
		if (g->bytes[s] == 16) {
			p = rec_put_hex(p, v[1], 16, hex);
			p = rec_put_hex(p, v[0], 16, hex);
		} else {
			p = rec_put_hex(p, v[0], g->bytes[s] * 2, hex);
		}
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
	}
	return 0;
}

#endif /* TK_HAVE_UNICORN */
