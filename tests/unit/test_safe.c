/* test_safe: the one rule for strings on their way to a terminal or a file a person opens:
 * C0, DEL and C1 (as UTF-8 and as raw bytes) and bytes that are not UTF-8 become \xNN, escape
 * sequences lose every ESC, valid UTF-8 is kept whole, a cut never splits a unit. */
#include <stdlib.h>
#include <string.h>

#include "util/safe.h"
#include "tap.h"

static int is(const char *in, unsigned flags, const char *want)
{
	char out[256];
	safe_text(out, sizeof out, in, flags);
	int pass = strcmp(out, want) == 0 && safe_len(in, flags) == strlen(want);
	if (!pass)
		diag("got '%s' (length %zu), want '%s'", out, safe_len(in, flags), want);
	return pass;
}

/* no byte of the rendering is a control or outside ASCII but those of kept UTF-8 */
static int clean(const char *s)
{
	for (; *s;) {
		struct safe_unit u = safe_next(s);
		if (u.cls != SAFE_KEEP)
			return 0;
		s += u.len;
	}
	return 1;
}

static void classes(void)
{
	struct safe_unit u = safe_next("\x1b[2J");
	ok(u.cls == SAFE_CONTROL && u.len == 1 && u.cp == 0x1b, "ESC is a control of 1 byte");
	u = safe_next("\x7f");
	ok(u.cls == SAFE_CONTROL && u.cp == 0x7f, "DEL is a control");
	u = safe_next("\xc2\x9b");
	ok(u.cls == SAFE_CONTROL && u.len == 2 && u.cp == 0x9b, "C2 9B is C1 CSI, 2 bytes");
	u = safe_next("\xc2\x80");
	ok(u.cls == SAFE_CONTROL && u.cp == 0x80, "C2 80 (U+0080) is C1");
	u = safe_next("\xc2\xa0");
	ok(u.cls == SAFE_KEEP && u.len == 2 && u.cp == 0xa0, "C2 A0 (U+00A0) is kept");
	u = safe_next("\x9b" "2J");
	ok(u.cls == SAFE_BAD && u.len == 1 && u.cp == 0x9b, "a raw 0x9B is not UTF-8");
	u = safe_next("\xe2\x82\xac");
	ok(u.cls == SAFE_KEEP && u.len == 3 && u.cp == 0x20ac, "the euro sign is kept, 3 bytes");
	u = safe_next("\xf0\x9f\x98\x80");
	ok(u.cls == SAFE_KEEP && u.len == 4 && u.cp == 0x1f600, "a 4-byte emoji is kept");
	u = safe_next("\xe2\x82");
	ok(u.cls == SAFE_BAD && u.len == 1, "a sequence cut by the NUL is bad, nothing read past");
	ok(safe_next("\xc0\x9b").cls == SAFE_BAD, "an overlong C0 9B (ESC [ in disguise) is bad");
	ok(safe_next("\xed\xa0\x80").cls == SAFE_BAD, "a UTF-16 surrogate is bad");
	ok(safe_next("\xf4\x90\x80\x80").cls == SAFE_BAD, "beyond U+10FFFF is bad");
}

static void rendering(void)
{
	ok(is("n1.cluster", 0, "n1.cluster"), "plain ASCII unchanged");
	ok(is("a\tb\nc\rd", 0, "a\\x09b\\x0ac\\x0dd"), "C0 (tab, newline, CR) as \\xNN");
	ok(is("\x1b]0;x\x07", 0, "\\x1b]0;x\\x07"), "ESC ] 0 ; x BEL: no ESC, no BEL left");
	ok(is("\x1b[2J", 0, "\\x1b[2J"), "ESC [ 2 J: no ESC left");
	ok(is("x\x7fy", 0, "x\\x7fy"), "DEL as \\x7f");
	ok(is("a\xc2\x9b" "2Jb", 0, "a\\xc2\\x9b2Jb"), "C1 CSI in UTF-8: each byte as \\xNN");
	ok(is("a\x9b" "2J\x80\x9f", 0, "a\\x9b2J\\x80\\x9f"), "raw 0x80-0x9F bytes as \\xNN");
	ok(is("\xff\xfe", 0, "\\xff\\xfe"), "other bytes that are not UTF-8 as \\xNN");
	ok(is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	   "valid multibyte UTF-8 kept whole");
	ok(is("C:\\d", 0, "C:\\d"), "a backslash stays in a message");
	ok(is("C:\\d\x1b", SAFE_EXACT, "C:\\x5cd\\x1b"), "SAFE_EXACT writes it \\x5c");
	ok(is(NULL, 0, ""), "NULL is empty");
	ok(is("a: 1\n\tb\x1b\r", SAFE_LINES, "a: 1\n\tb\\x1b\\x0d"),
	   "SAFE_LINES keeps newline and tab, nothing else");
	char once[64], twice[64];
	safe_text(once, sizeof once, "\x1b[1m\xc2\x9b\x9b\\x", 0);
	safe_text(twice, sizeof twice, once, 0);
	ok(strcmp(once, twice) == 0 && clean(once), "a rendering rendered again is the same (%s)",
	   once);
}

static void cuts(void)
{
	char out[8];
	memset(out, 'z', sizeof out);
	safe_text(out, 6, "ab\x1b" "cd", 0);
	ok(strcmp(out, "ab") == 0, "a \\xNN that does not fit is left out whole ('%s')", out);
	safe_text(out, 5, "ab\xe2\x82\xac", 0);
	ok(strcmp(out, "ab") == 0, "so is a multibyte character ('%s')", out);
	safe_text(out, 6, "ab\xe2\x82\xac", 0);
	ok(strcmp(out, "ab\xe2\x82\xac") == 0, "which fits with its NUL in 6");
	out[0] = 'q';
	safe_text(out, 0, "ab", 0);
	ok(out[0] == 'q', "len 0 writes nothing");
	char big[SAFE_ROOM(64)], in[65];
	for (int i = 0; i < 64; i++)
		in[i] = (char)(0x80 + (i & 31));
	in[64] = '\0';
	safe_text(big, sizeof big, in, 0);
	ok(strlen(big) == 256 && clean(big), "SAFE_ROOM holds the worst case whole");
}

static void stream(void)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (f == NULL) {
		ok(0, "open_memstream");
		return;
	}
	safe_fput(f, "h\x1b]0;x\x07\xc2\x9b\x9b", SAFE_EXACT);
	safe_fput(f, NULL, 0);
	fclose(f);
	ok(buf && strcmp(buf, "h\\x1b]0;x\\x07\\xc2\\x9b\\x9b") == 0, "safe_fput writes the same");
	free(buf);
}

int main(void)
{
	classes();
	rendering();
	cuts();
	stream();
	return tap_done();
}
