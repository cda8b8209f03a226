/* tapdelay: the box's delay line. Joins two TAP devices (each in a network namespace of its
 * own, made beforehand with `ip tuntap add ... mode tap`) into one link that holds every
 * Ethernet frame a fixed time before passing it on, both directions, in order: what the
 * kernel sends out of one TAP is received on the other DELAY_US microseconds later. It stands
 * in for tc's netem, which some kernels lack. A frame that finds its direction's ring full is
 * dropped and counted; the counts are printed on SIGUSR1 and on exit (SIGTERM, SIGINT).
 *
 *   tapdelay DELAY_US NETNS_A TAP_A NETNS_B TAP_B     (NETNS: a path such as /run/netns/box-sw)
 *
 * Exit status: 0 on a signal, 1 on a system error, 2 on bad arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define TD_SLOTS 4096    /* frames held per direction: 120 ms of full frames at 400 Mbit/s */
#define TD_FRAME 1536    /* an Ethernet frame of the box's MTU (1500) and its 14-byte header */
#define TD_BATCH 64      /* frames read from one side before the other side's turn */

struct td_frame {
	uint64_t due;    /* CLOCK_MONOTONIC nanoseconds at which it leaves */
	uint16_t len;
	unsigned char data[TD_FRAME];
};

/* One direction: frames read from fd `in`, written to fd `out` once due. */
struct td_dir {
	int in, out;
	const char *name;
	struct td_frame *ring;
	size_t head, count, peak;
	unsigned long long passed, dropped, bytes, write_errors;
};

static volatile sig_atomic_t td_stop, td_tell;

static void td_on_signal(int sig)
{
	if (sig == SIGUSR1)
		td_tell = 1;
	else
		td_stop = 1;
}

static void td_die(const char *what)
{
	fprintf(stderr, "tapdelay: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t td_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		td_die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TAP device NAME in the network namespace at NETNS, opened non-blocking. A tun file
 * belongs to the namespace its opener was in, so the namespace is entered first. */
static int td_open_tap(const char *netns, const char *name)
{
	int ns = open(netns, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		td_die(netns);
	if (setns(ns, CLONE_NEWNET) != 0)
		td_die("setns");
	if (close(ns) != 0)
		td_die("close");
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		td_die("/dev/net/tun");
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (strlen(name) >= sizeof ifr.ifr_name) {
		errno = ENAMETOOLONG;
		td_die(name);
	}
	strcpy(ifr.ifr_name, name);
	if (ioctl(fd, TUNSETIFF, &ifr) != 0)
		td_die(name);
	return fd;
}

/* Read what waits on d->in (up to TD_BATCH frames), each stamped to leave `delay` from now. */
static void td_take(struct td_dir *d, uint64_t delay)
{
	for (int i = 0; i < TD_BATCH; i++) {
		struct td_frame scratch, *f = &scratch;
		if (d->count < TD_SLOTS)
			f = &d->ring[(d->head + d->count) % TD_SLOTS];
		ssize_t n = read(d->in, f->data, sizeof f->data);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			td_die("read");
		}
		if (f == &scratch) {
			d->dropped++;
			continue;
		}
		f->len = (uint16_t)n;
		f->due = td_now() + delay;
		if (++d->count > d->peak)
			d->peak = d->count;
	}
}

/* Write every frame that is due, oldest first; a frame the kernel refuses is counted, not
 * retried, as a wire would lose it. */
static void td_give(struct td_dir *d, uint64_t now)
{
	while (d->count > 0 && d->ring[d->head].due <= now) {
		struct td_frame *f = &d->ring[d->head];
		ssize_t n = write(d->out, f->data, f->len);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			d->write_errors++;
		else {
			d->passed++;
			d->bytes += f->len;
		}
		d->head = (d->head + 1) % TD_SLOTS;
		d->count--;
	}
}

/* How long poll may sleep: until the earliest frame is due, or until a signal. */
static struct timespec td_wait(const struct td_dir *dirs, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (int i = 0; i < 2; i++)
		if (dirs[i].count > 0 && dirs[i].ring[dirs[i].head].due < next)
			next = dirs[i].ring[dirs[i].head].due;
	if (next == UINT64_MAX)
		next = now + 1000000000u;
	uint64_t w = next > now ? next - now : 0;
	return (struct timespec){.tv_sec = (time_t)(w / 1000000000u), .tv_nsec = (long)(w % 1000000000u)};
}

static void td_report(const struct td_dir *d)
{
	fprintf(stderr, "tapdelay: %s: %llu frames (%llu bytes) passed, %llu dropped (ring full), "
	        "%llu refused, at most %zu held\n", d->name, d->passed, d->bytes, d->dropped,
	        d->write_errors, d->peak);
}

static void td_loop(struct td_dir *dirs, uint64_t delay)
{
	struct pollfd p[2] = {{.fd = dirs[0].in, .events = POLLIN}, {.fd = dirs[1].in, .events = POLLIN}};
	sigset_t none;
	sigemptyset(&none);
	while (!td_stop) {
		uint64_t now = td_now();
		td_give(&dirs[0], now);
		td_give(&dirs[1], now);
		struct timespec w = td_wait(dirs, now);
		int n = ppoll(p, 2, &w, &none);
		if (n < 0 && errno != EINTR)
			td_die("ppoll");
		if (td_tell) {
			td_tell = 0;
			td_report(&dirs[0]);
			td_report(&dirs[1]);
		}
		for (int i = 0; n > 0 && i < 2; i++)
			if (p[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				errno = EIO;
				td_die(dirs[i].name);
			} else if (p[i].revents & POLLIN)
				td_take(&dirs[i], delay);
	}
}

int main(int argc, char **argv)
{
	char *end;
	if (argc != 6) {
		fprintf(stderr, "usage: tapdelay DELAY_US NETNS_A TAP_A NETNS_B TAP_B\n");
		return 2;
	}
	unsigned long us = strtoul(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || us > 10000000ul) {
		fprintf(stderr, "tapdelay: bad DELAY_US '%s' (0..10000000)\n", argv[1]);
		return 2;
	}
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		td_die("/proc/self/ns/net");
	int a = td_open_tap(argv[2], argv[3]), b = td_open_tap(argv[4], argv[5]);
	/* back in the namespace it was started in: the box's namespaces hold no process of its */
	if (setns(home, CLONE_NEWNET) != 0 || close(home) != 0)
		td_die("setns back");
	struct td_dir dirs[2] = {{.in = a, .out = b, .name = argv[3]}, {.in = b, .out = a, .name = argv[5]}};
	for (int i = 0; i < 2; i++)
		if ((dirs[i].ring = calloc(TD_SLOTS, sizeof *dirs[i].ring)) == NULL)
			td_die("calloc");
	struct sigaction sa = {.sa_handler = td_on_signal};
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	/* signals are taken only inside ppoll, so none is lost between the check and the wait */
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGUSR1, &sa, NULL) != 0 || sigprocmask(SIG_BLOCK, &block, NULL) != 0)
		td_die("sigaction");
	td_loop(dirs, (uint64_t)us * 1000u);
	td_report(&dirs[0]);
	td_report(&dirs[1]);
	return 0;
}
