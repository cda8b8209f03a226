/* states: the words of a phase's and a run's status in the results file, and back. Inside
 * the program a status is an enum; only what writes or reads the file (and the text the
 * report prints) uses the words. */
#include "results/results.h"

#include <string.h>

static const char *const results_phase_words[] = {
	[PHASE_COMPLETE] = "complete", [PHASE_FAILED] = "failed", [PHASE_TIMEOUT] = "timeout",
	[PHASE_INTERRUPTED] = "interrupted", [PHASE_UNKNOWN] = "unknown"};

static const char *const results_run_words[] = {
	[RUN_RUNNING] = "running",         [RUN_COMPLETE] = "complete", [RUN_FAILED] = "failed",
	[RUN_TIMEOUT] = "timeout",         [RUN_INTERRUPTED] = "interrupted",
	[RUN_PARTIAL] = "partial",         [RUN_UNKNOWN] = "unknown"};

#define RESULTS_NWORDS(a) (sizeof a / sizeof a[0])

/* The index of word in words[0..n - 1), the last entry (the unknown state) when none. */
static int results_word_index(const char *const *words, size_t n, const char *word)
{
	for (size_t i = 0; word != NULL && i + 1 < n; i++)
		if (strcmp(words[i], word) == 0)
			return (int)i;
	return (int)n - 1;
}

const char *results_phase_status_name(int status)
{
	size_t i = status >= 0 && (size_t)status < RESULTS_NWORDS(results_phase_words)
			   ? (size_t)status : PHASE_UNKNOWN;
	return results_phase_words[i];
}

enum phase_status results_phase_status_parse(const char *word)
{
	return (enum phase_status)results_word_index(
		results_phase_words, RESULTS_NWORDS(results_phase_words), word);
}

const char *results_run_status_name(enum run_status status)
{
	size_t i = (size_t)status < RESULTS_NWORDS(results_run_words) ? (size_t)status
								       : RUN_UNKNOWN;
	return results_run_words[i];
}

enum run_status results_run_status_parse(const char *word)
{
	return (enum run_status)results_word_index(results_run_words,
						   RESULTS_NWORDS(results_run_words), word);
}
