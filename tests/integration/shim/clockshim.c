/* clockshim: an LD_PRELOAD library that gives pfsread the clock trouble of a real cluster, for
 * clock.t. Each behaviour is off unless its variable is set:
 *   SHIM_CREATE_DELAY=S  H5Fcreate sleeps S seconds first: a slow start-up step between the
 *                        first clock read of a node's first rank and of the others (Open MPI's
 *                        MPI_Wtime counts from each process's first call)
 *   SHIM_CLOCK_SKEW=S    CLOCK_MONOTONIC runs S seconds ahead on odd world ranks: processes
 *                        that do not share a clock (other time namespaces, other machines)
 *   SHIM_JUMP_AT_CREATE=S  the same, but only from the first H5Fcreate on: a clock that jumps
 *                        after the offsets were measured
 *   SHIM_HANG_SPLIT=R    MPI_Comm_split_type never returns on world rank R: a start-up hang
 * The world rank comes from OMPI_COMM_WORLD_RANK or PMI_RANK. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int shim_jumped;

static int shim_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	if (r == NULL)
		r = getenv("PMI_RANK");
	return r != NULL ? atoi(r) : -1;
}

static double shim_env(const char *name)
{
	const char *v = getenv(name);
	return v != NULL ? atof(v) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	if (real == NULL)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int rc = real(id, ts);
	double skew = shim_env("SHIM_CLOCK_SKEW");
	if (shim_jumped)
		skew += shim_env("SHIM_JUMP_AT_CREATE");
	if (rc == 0 && id == CLOCK_MONOTONIC && skew > 0 && shim_rank() % 2 == 1)
		ts->tv_sec += (time_t)skew;
	return rc;
}

hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
	static hid_t (*real)(const char *, unsigned, hid_t, hid_t);
	if (real == NULL)
		real = (hid_t(*)(const char *, unsigned, hid_t, hid_t))dlsym(RTLD_NEXT, "H5Fcreate");
	double delay = shim_env("SHIM_CREATE_DELAY");
	if (delay > 0)
		usleep((useconds_t)(delay * 1e6));
	shim_jumped = 1;
	return real(name, flags, fcpl, fapl);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
	static int (*real)(MPI_Comm, int, int, MPI_Info, MPI_Comm *);
	if (real == NULL)
		real = (int (*)(MPI_Comm, int, int, MPI_Info, MPI_Comm *))dlsym(RTLD_NEXT,
										 "MPI_Comm_split_type");
	const char *hang = getenv("SHIM_HANG_SPLIT");
	if (hang != NULL && atoi(hang) == shim_rank())
		for (;;)
			pause();
	return real(comm, type, key, info, out);
}
