/* need: what generating a data set writes on its file system, in whole blocks and inodes (its
 * files, directories, manifest, digest lists and tree description), for space_check before
 * generate touches anything. Pure. */
#include "dataset/dataset.h"

#include <string.h>

#include "dataset/tree.h"
#include "util/digest.h"

/* Directories an indexed, flat or hashed layout makes at most (the data set's own too). */
static uint64_t need_dirs(const struct cfg_dataset *d)
{
	const struct cfg_layout *l = &d->layout;
	uint64_t dirs = 1, span = 1;
	if (l->kind == CFG_LAYOUT_INDEXED && l->files_per_dir > 0)
		return 1 + d->nfiles / l->files_per_dir + (d->nfiles % l->files_per_dir != 0);
	if (l->kind == CFG_LAYOUT_TREE && d->tree != NULL)
		return 1 + d->tree->ndirs;
	if (l->kind != CFG_LAYOUT_HASHED)
		return 1;
	for (uint64_t level = 0; level < l->depth; level++) {
		span = space_mul_sat(span, 1ULL << (4 * l->width)); /* directories on this level */
		dirs = space_add_sat(dirs, span < d->nfiles ? span : d->nfiles);
	}
	return dirs;
}

/* The files' bytes in whole blocks: exact for fixed sizes and histograms, at most one block
 * more per file for distributions and trees. */
static uint64_t need_file_bytes(const struct cfg_dataset *d, uint64_t block)
{
	uint64_t bytes = 0;
	if (d->sizes == CFG_SIZES_FIXED)
		return space_mul_sat(d->nfiles, space_blocks(d->file_size, block));
	if (d->sizes == CFG_SIZES_HISTOGRAM) {
		for (size_t k = 0; k < d->nbuckets; k++)
			bytes = space_add_sat(bytes, space_mul_sat(d->buckets[k].count,
								   space_blocks(d->buckets[k].size, block)));
		return bytes;
	}
	return space_add_sat(space_blocks(d->total_size, block), space_mul_sat(d->nfiles, block));
}

void dataset_space_need(const struct experiment *x, const struct cfg_dataset *d, uint64_t block,
			struct space_need *n)
{
	uint64_t lists = 0, aux = 4096; /* the manifest */
	memset(n, 0, sizeof *n);
	if (d->layout.kind == CFG_LAYOUT_IN_PLACE) { /* only the description and the manifest */
		n->bytes = space_blocks(aux + (d->tree ? d->tree->text_len : 0), block) + block;
		n->inodes = 3;
		return;
	}
	if (x->process_digest != DIGEST_NONE)
		lists = space_add_sat(lists, space_mul_sat(d->nfiles,
							   digest_hex_len(x->process_digest) + 1));
	if (d->layout.kind == CFG_LAYOUT_HASHED)
		lists = space_add_sat(lists, space_mul_sat(d->nfiles,
							   digest_hex_len(d->layout.digest) + 1));
	if (d->tree != NULL)
		aux += d->tree->text_len;
	uint64_t dirs = need_dirs(d);
	n->bytes = need_file_bytes(d, block);
	n->bytes = space_add_sat(n->bytes, space_mul_sat(dirs, block));
	n->bytes = space_add_sat(n->bytes, space_blocks(lists, block) + space_blocks(aux, block));
	n->inodes = space_add_sat(space_add_sat(d->nfiles, dirs), 4); /* manifest, lists, tree */
}
