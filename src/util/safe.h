/* safe: the one rule for a string from outside pfsread (a config file, a results file, the
 * system: host names, mount points, storage targets, paths) on its way to a terminal or to a
 * file a person opens. Kept as it is: every valid UTF-8 character that is not a control.
 * Not kept: the C0 controls (U+0000-U+001F), DEL (U+007F), the C1 controls (U+0080-U+009F,
 * C2 80 to C2 9F in UTF-8, which some terminals obey as ESC [ and the like) and every byte
 * that does not begin a valid UTF-8 sequence (a raw 0x9B is CSI to an 8-bit terminal). Each
 * output format shows what is not kept in its own way (JSON as \u00XX); text, markdown, HTML,
 * CSV and messages show it as \xNN, one per byte (safe_text). Pure: no I/O but safe_fput. */
#ifndef PFSREAD_SAFE_H
#define PFSREAD_SAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum safe_class {
	SAFE_KEEP,    /* a printable character, ASCII or valid multibyte UTF-8 */
	SAFE_CONTROL, /* C0, DEL or C1 (a C1 in valid UTF-8 is 2 bytes) */
	SAFE_BAD      /* one byte that does not begin valid UTF-8 */
};

struct safe_unit {
	enum safe_class cls;
	size_t len;  /* bytes of the unit (1 to 4) */
	uint32_t cp; /* its code point; for SAFE_BAD the byte */
};

/* The unit that starts at s, which must not be at its terminating NUL. */
struct safe_unit safe_next(const char *s);

/* With SAFE_EXACT a backslash is written \x5c as well, so that undoing every \xNN gives the
 * original bytes back (CSV); without it a backslash stays (a message, a table). */
#define SAFE_EXACT 1u
/* With SAFE_LINES newline and tab are kept: text of many lines shown as such (the config in
 * the HTML page's <pre>), never a value on one line of a table or a message. */
#define SAFE_LINES 2u

/* The rendering of the unit u at s into buf (SAFE_UNIT_MAX bytes, no NUL): the unit as it
 * is when kept, else \xNN for each of its bytes. Returns its length. The one place the rule's
 * text form is made: safe_text, safe_len, safe_fput and the report's writers all call it. */
#define SAFE_UNIT_MAX 16
size_t safe_unit_text(const char *s, struct safe_unit u, unsigned flags, char *buf);

/* s (NULL is "") with every byte of a unit that is not kept written \xNN (lowercase hex),
 * into out of len bytes, NUL-terminated, cut short at a unit's end when it does not fit
 * (len 0: nothing written). Returns out. safe_text(out, n, safe_text(...)) changes nothing
 * without SAFE_EXACT. */
char *safe_text(char *out, size_t len, const char *s, unsigned flags);
/* The length safe_text's rendering of s has uncut. */
size_t safe_len(const char *s, unsigned flags);
/* Room for the rendering of a string of at most n bytes, with its NUL. */
#define SAFE_ROOM(n) (4 * (n) + 1)
/* safe_text's rendering of s written to out (NULL s writes nothing). */
void safe_fput(FILE *out, const char *s, unsigned flags);

#endif
