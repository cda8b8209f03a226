/* test_lock: the pure half of util/lock: a lock file's text written and read back, damaged
 * texts refused, the stale decision, conflicts between holders, a holder in words. */
#include <stdlib.h>
#include <string.h>

#include "util/lock.h"
#include "tap.h"

static void test_round_trip(void)
{
	const char *names[] = {"big", "small", "a.b-c_d"};
	size_t len = 0;
	struct lock_info li;
	char *s = lock_format("generate", 1, "n1", 1234, 1764704400LL, names, 3, &len);
	ok(s != NULL && len == strlen(s), "format: a text of the length it says");
	ok(lock_parse(s, len, &li) == 0, "parse reads back what format wrote");
	ok(strcmp(li.command, "generate") == 0 && strcmp(li.host, "n1") == 0 && li.pid == 1234 &&
		   li.start == 1764704400LL && li.exclusive == 1 && li.nnames == 3,
	   "... its command, host, pid, start, mode and count");
	ok(li.names_len == strlen("big\nsmall\na.b-c_d\n") &&
		   memcmp(li.names, "big\nsmall\na.b-c_d\n", li.names_len) == 0,
	   "... and its names, one a line");
	free(s);
	s = lock_format("run --resume", 0, "n2", 7, 0, NULL, 0, &len);
	ok(s != NULL && lock_parse(s, len, &li) == 0 && !li.exclusive && li.nnames == 0 &&
		   strcmp(li.command, "run --resume") == 0,
	   "a results file's lock: shared mode off, no names, a command of two words");
	free(s);
}

static void test_damaged(void)
{
	static const char *bad[] = {
		"",
		"pfsread-lock 2\ncommand run\nmode shared\nhost a\npid 1\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 1\nstart 1\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 1\nstart 1\nnames 1\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 1\nstart 1\nnames 1\nbig",
		"pfsread-lock 1\ncommand run\nmode both\nhost a\npid 1\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 0\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid -5\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 12x\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost \npid 1\nstart 1\nnames 0\n",
		"pfsread-lock 1\nmode shared\ncommand run\nhost a\npid 1\nstart 1\nnames 0\n",
		"pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 99999999999\nstart 1\nnames 0\n",
	};
	struct lock_info li;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(lock_parse(bad[i], strlen(bad[i]), &li) == -1, "damaged lock %zu refused", i);
	const char half[] = "pfsread-lock 1\ncommand run\nmode sha";
	ok(lock_parse(half, sizeof half - 1, &li) == -1, "a lock cut short refused");
	char nul[] = "pfsread-lock 1\ncommand run\nmode shared\nhost a\npid 1\nstart 1\nnames 1\nb\0g\n";
	ok(lock_parse(nul, sizeof nul - 1, &li) == -1, "a NUL among the names refused");
}

static void test_judge(void)
{
	struct lock_info li;
	memset(&li, 0, sizeof li);
	strcpy(li.host, "n1");
	li.pid = 10;
	ok(lock_judge(&li, "n1", 1, 5, 600) == LOCK_GONE, "this host, pid gone: stale at once");
	ok(lock_judge(&li, "n1", 0, 5, 600) == LOCK_LIVE, "this host, pid there, fresh: live");
	ok(lock_judge(&li, "n1", 0, 601, 600) == LOCK_SILENT,
	   "this host, pid there but heartbeat old (a reused pid): stale");
	ok(lock_judge(&li, "n2", 1, 5, 600) == LOCK_LIVE,
	   "another host: its pid is not looked at; fresh heartbeat: live");
	ok(lock_judge(&li, "n2", 0, 600, 600) == LOCK_LIVE, "another host, heartbeat at the limit: live");
	ok(lock_judge(&li, "n2", 0, 3600, 600) == LOCK_SILENT, "another host, heartbeat old: stale");
	ok(lock_judge(&li, "n2", 0, -30, 600) == LOCK_LIVE,
	   "a heartbeat in the future (clocks apart): live");
}

/* a lock_info over a names text */
static struct lock_info holder(int exclusive, const char *names, uint64_t n)
{
	struct lock_info li;
	memset(&li, 0, sizeof li);
	li.exclusive = exclusive;
	li.names = names;
	li.names_len = strlen(names);
	li.nnames = n;
	return li;
}

static void test_conflict(void)
{
	char name[64];
	struct lock_info run1 = holder(0, "a\nb\n", 2), run2 = holder(0, "b\nc\n", 2),
			 gen_b = holder(1, "x\nb\n", 2), gen_z = holder(1, "z\n", 1),
			 gen_ab = holder(1, "ab\n", 1), none = holder(1, "", 0);
	ok(!lock_conflict(&run1, &run2, name, sizeof name), "two runs on one data set: no conflict");
	ok(lock_conflict(&run1, &gen_b, name, sizeof name) && strcmp(name, "b") == 0,
	   "a run and a generate of one of its data sets conflict, named 'b'");
	ok(lock_conflict(&gen_b, &run2, name, sizeof name) && strcmp(name, "b") == 0,
	   "... seen from either side");
	ok(!lock_conflict(&gen_z, &run1, name, sizeof name), "a generate of other data sets: no conflict");
	ok(!lock_conflict(&gen_ab, &run1, name, sizeof name), "'ab' is not 'a' nor 'b'");
	ok(lock_conflict(&gen_b, &gen_b, name, sizeof name), "two generates of one data set conflict");
	ok(!lock_conflict(&none, &run1, name, sizeof name), "a holder of nothing conflicts with nobody");
	/* 10^5 names each side: a table, not a product of the two lists */
	size_t n = 100000, len = n * 8;
	char *a = malloc(len + 1), *b = malloc(len + 1);
	for (size_t i = 0; a != NULL && b != NULL && i < n; i++) {
		snprintf(a + i * 8, 9, "a%06zu\n", i);
		snprintf(b + i * 8, 9, "b%06zu\n", i);
	}
	if (a != NULL && b != NULL) {
		struct lock_info big_a = holder(1, a, n), big_b = holder(0, b, n);
		ok(!lock_conflict(&big_a, &big_b, name, sizeof name),
		   "10^5 data sets each, none shared: no conflict");
		b[len - 8] = 'a'; /* b's last name becomes a099999 */
		ok(lock_conflict(&big_a, &big_b, name, sizeof name) && strcmp(name, "a099999") == 0,
		   "... one shared: found and named");
	}
	free(a);
	free(b);
}

static void test_describe(void)
{
	struct lock_info li;
	char buf[256];
	memset(&li, 0, sizeof li);
	strcpy(li.command, "clean");
	strcpy(li.host, "n3");
	li.pid = 77;
	li.start = 0;
	lock_describe(&li, buf, sizeof buf);
	ok(strcmp(buf, "clean (pid 77 on host n3, since 1970-01-01 00:00:00 UTC)") == 0,
	   "a holder in words: %s", buf);
}

int main(void)
{
	test_round_trip();
	test_damaged();
	test_judge();
	test_conflict();
	test_describe();
	return tap_done();
}
