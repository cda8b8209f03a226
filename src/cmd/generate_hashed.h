/* generate_hashed: where a hashed data set's files go once they are named. Internal to
 * src/cmd (generate.c). */
#ifndef PFSREAD_CMD_GENERATE_HASHED_H
#define PFSREAD_CMD_GENERATE_HASHED_H

#include <stdint.h>

#include "cmd/datasets.h"
#include "util/err.h"

/* File's .part name, ROOT/NAME/fNNNNNNNNNN.part, into path (GEN_PATH bytes). */
int gen_hashed_part_path(const struct gen_ctx *g, uint64_t file, char *path, struct pf_err *e);

/* File, written under its .part name and listed as hex, waits to be moved to its name.
 * 0, or -ENOMEM. */
int gen_hashed_pending(struct gen_ctx *g, uint64_t file, const char *hex);

/* Once every rank has written its share (rc: how this rank's went): the directories of every
 * waiting file's name are made, each by one rank, and each rank moves its files in. A rank
 * that failed, or a failure here, leaves no .part file of this rank behind (their listed
 * lines make the next generate remake them). Collective. 0, or -1 (e set on the ranks that
 * failed). */
int gen_hashed_move(struct gen_ctx *g, int rc, struct pf_err *e);

/* Release what the waiting files hold (after gen_hashed_move, or on the way out). */
void gen_hashed_free(struct gen_ctx *g);

#endif
