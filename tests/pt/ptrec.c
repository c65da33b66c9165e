/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ptrec: record the instructions a real x86-64 program executes, by
 * single-stepping it under ptrace, for the Intel PT test generator.
 *
 *   ptrec [--from=ADDR] [--to=ADDR] OUT PROGRAM [ARGS...]
 *
 * The program runs with an empty environment and without address space
 * randomisation, so runs are repeatable.  With --from, recording starts
 * when the program first reaches ADDR (an int3 is planted there); with
 * --to, it stops before the instruction at that address.  OUT
 * gets one line per executed instruction, "IP SIZE CLASS TARGET" (hex; the
 * class letter: o other, b conditional branch, j direct jump, J indirect
 * jump, c direct call, C indirect call, r return, s syscall / int / far
 * call), then the executable mappings at exit as "map START END OFFSET
 * PATH" ([vdso] is dumped to OUT.vdso).  Exit status 77: ptrace refused
 * (the tests skip). */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static csh cs;

static char classify(const uint8_t *code, size_t n, uint64_t ip, uint8_t *size,
		     uint64_t *target, bool *rep)
{
	cs_insn *in;
	*target = 0;
	*rep = false;
	if (cs_disasm(cs, code, n, ip, 1, &in) != 1) {
		*size = 0;
		return 'o';
	}
	*size = (uint8_t)in->size;
	const cs_x86 *x = &in->detail->x86;
	bool imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
	if (imm)
		*target = (uint64_t)x->operands[0].imm;
	for (int i = 0; i < 4; i++)
		if (x->prefix[i] == X86_PREFIX_REP || x->prefix[i] == X86_PREFIX_REPNE)
			*rep = true;
	char c = 'o';
	switch (in->id) {
	case X86_INS_CALL: c = imm ? 'c' : 'C'; break;
	case X86_INS_RET: c = 'r'; break;
	case X86_INS_JMP: c = imm ? 'j' : 'J'; break;
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT: case X86_INS_INT3:
	case X86_INS_INT1: case X86_INS_INTO: case X86_INS_LCALL:
		c = 's';
		break;
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ: case X86_INS_JE:
	case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JS: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		c = 'b';
		break;
	}
	cs_free(in, 1);
	return c;
}

static void dump_maps(pid_t pid, FILE *out, const char *outpath)
{
	char path[64], line[4600];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *m = fopen(path, "r");
	if (!m)
		return;
	while (fgets(line, sizeof line, m)) {
		unsigned long long start, end, off;
		char perms[8], file[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file) < 4 || perms[2] != 'x')
			continue;
		char *f = file;
		while (*f == ' ')
			f++;
		if (!strcmp(f, "[vdso]")) {
			char vpath[4200], mpath[64];
			snprintf(vpath, sizeof vpath, "%s.vdso", outpath);
			snprintf(mpath, sizeof mpath, "/proc/%d/mem", (int)pid);
			int mfd = open(mpath, O_RDONLY), vfd = open(vpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			size_t len = (size_t)(end - start);
			uint8_t *buf = malloc(len);
			if (mfd >= 0 && vfd >= 0 && buf && pread(mfd, buf, len, (off_t)start) == (ssize_t)len &&
			    write(vfd, buf, len) == (ssize_t)len)
				fprintf(out, "map %llx %llx 0 %s\n", start, end, vpath);
			free(buf);
			if (mfd >= 0)
				close(mfd);
			if (vfd >= 0)
				close(vfd);
			continue;
		}
		if (f[0] == '/')
			fprintf(out, "map %llx %llx %llx %s\n", start, end, off, f);
	}
	fclose(m);
}

int main(int argc, char **argv)
{
	uint64_t from = 0, to = 0;
	int a = 1;
	for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
		if (!strncmp(argv[a], "--from=", 7))
			from = strtoull(argv[a] + 7, NULL, 16);
		else if (!strncmp(argv[a], "--to=", 5))
			to = strtoull(argv[a] + 5, NULL, 16);
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: ptrec [--from=ADDR] [--to=ADDR] OUT PROGRAM [ARGS...]\n");
		return 2;
	}
	const char *outpath = argv[a];
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	pid_t pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(errno == EPERM ? 77 : 1);
		personality(ADDR_NO_RANDOMIZE);
		char *envp[] = {NULL};
		execve(argv[a + 1], argv + a + 1, envp);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
			fprintf(stderr, "ptrec: ptrace refused\n");
			return 77;
		}
		fprintf(stderr, "ptrec: the program did not start\n");
		return 1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) != 0) {
		fprintf(stderr, "ptrec: ptrace: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		return errno == EPERM ? 77 : 1;
	}
	if (from) {
		errno = 0;
		long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)from, NULL);
		if (errno) {
			fprintf(stderr, "ptrec: cannot read 0x%" PRIx64 "\n", from);
			kill(pid, SIGKILL);
			return 1;
		}
		long trap = (word & ~0xffL) | 0xcc;
		ptrace(PTRACE_POKETEXT, pid, (void *)from, (void *)trap);
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
			fprintf(stderr, "ptrec: did not reach 0x%" PRIx64 "\n", from);
			return 1;
		}
		ptrace(PTRACE_POKETEXT, pid, (void *)from, (void *)word);
		struct user_regs_struct r;
		ptrace(PTRACE_GETREGS, pid, NULL, &r);
		r.rip = from;
		ptrace(PTRACE_SETREGS, pid, NULL, &r);
	}
	FILE *out = fopen(outpath, "w");
	char mpath[64];
	snprintf(mpath, sizeof mpath, "/proc/%d/mem", (int)pid);
	int mem = open(mpath, O_RDONLY);
	if (!out || mem < 0) {
		kill(pid, SIGKILL);
		return 1;
	}
	uint64_t prev = 0, count = 0;
	bool prev_rep = false;
	int sig = 0;
	for (;;) {
		struct user_regs_struct r;
		ptrace(PTRACE_GETREGS, pid, NULL, &r);
		uint64_t ip = r.rip;
		if (to && ip == to) {
			dump_maps(pid, out, outpath);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		uint8_t code[16];
		ssize_t n = pread(mem, code, sizeof code, (off_t)ip);
		uint8_t size = 0;
		uint64_t target = 0;
		bool rep = false;
		char c = n > 0 ? classify(code, (size_t)n, ip, &size, &target, &rep) : 'o';
		/* A rep string instruction stops once per iteration. */
		if (!(count && ip == prev && prev_rep)) {
			fprintf(out, "%" PRIx64 " %x %c %" PRIx64 "\n", ip, size, c, target);
			count++;
		}
		prev = ip;
		prev_rep = rep;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig) != 0)
			break;
		sig = 0;
		if (waitpid(pid, &st, 0) < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			dump_maps(pid, out, outpath);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
			waitpid(pid, &st, 0);
			break;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st);
	}
	fclose(out);
	close(mem);
	fprintf(stderr, "ptrec: %" PRIu64 " instructions\n", count);
	return 0;
}
