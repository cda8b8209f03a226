/* safe: which characters of a string from outside may reach a terminal or a file a person
 * opens, and the \xNN form of those that may not (see safe.h). */
#include "util/safe.h"

#include <string.h>

/* Bytes of the valid UTF-8 sequence at p, or 0 when it is not one: no overlong form, no
 * UTF-16 surrogate, nothing above U+10FFFF. */
static size_t safe_utf8_len(const unsigned char *p)
{
	size_t n = 0;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4;
	if (n == 0 || p[0] == 0xc0 || p[0] == 0xc1 || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL: it is never read past */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

struct safe_unit safe_next(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct safe_unit u = {SAFE_BAD, 1, p[0]};
	size_t n = safe_utf8_len(p);
	if (n == 0)
		return u;
	u.len = n;
	u.cp = n == 1 ? p[0] : (uint32_t)(p[0] & (0x7f >> n));
	for (size_t i = 1; i < n; i++)
		u.cp = u.cp << 6 | (p[i] & 0x3f);
	u.cls = u.cp < 0x20 || (u.cp >= 0x7f && u.cp <= 0x9f) ? SAFE_CONTROL : SAFE_KEEP;
	return u;
}

size_t safe_unit_text(const char *s, struct safe_unit u, unsigned flags, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int line = flags & SAFE_LINES && (*s == '\n' || *s == '\t');
	if ((u.cls == SAFE_KEEP || line) && !(flags & SAFE_EXACT && *s == '\\')) {
		memcpy(buf, s, u.len);
		return u.len;
	}
	for (size_t i = 0; i < u.len; i++) {
		unsigned char b = (unsigned char)s[i];
		memcpy(buf + 4 * i, "\\x", 2);
		buf[4 * i + 2] = hex[b >> 4];
		buf[4 * i + 3] = hex[b & 15];
	}
	return 4 * u.len;
}

char *safe_text(char *out, size_t len, const char *s, unsigned flags)
{
	size_t at = 0;
	char buf[SAFE_UNIT_MAX];
	if (len == 0)
		return out;
	for (; s != NULL && *s;) {
		struct safe_unit u = safe_next(s);
		size_t n = safe_unit_text(s, u, flags, buf);
		if (at + n >= len)
			break;
		memcpy(out + at, buf, n);
		at += n;
		s += u.len;
	}
	out[at] = '\0';
	return out;
}

size_t safe_len(const char *s, unsigned flags)
{
	size_t total = 0;
	char buf[SAFE_UNIT_MAX];
	for (; s != NULL && *s;) {
		struct safe_unit u = safe_next(s);
		total += safe_unit_text(s, u, flags, buf);
		s += u.len;
	}
	return total;
}

void safe_fput(FILE *out, const char *s, unsigned flags)
{
	char buf[SAFE_UNIT_MAX];
	for (; s != NULL && *s;) {
		struct safe_unit u = safe_next(s);
		fwrite(buf, 1, safe_unit_text(s, u, flags, buf), out);
		s += u.len;
	}
}
