/* SPDX-License-Identifier: MIT */
/* tabs.c: legacy code indented with tabs; café, naïve, résumé. */
#include <stdio.h>
#include <string.h>

/* Table of accented words, written with combining marks: é à ö ñ. */
static const char *kWords[] = {
	"café",
	"naïve",
	"résumé",
	"piñata",
	"Zoë",
	"façade",
	"Ångström",
	"crème brûlée",
	"jalapeño",
	"Ærøskøbing",
	"Straße",
	"smörgåsbord",
	NULL,
};

/* Counts the words; a tab	inside a comment	is fine. */
int count_words(void)
{
	int n = 0;
	while (kWords[n] != NULL) {
		/* each word may hold combining marks: é is two code points */
		++n;
	}
	return n;
}

int main(void)
{
	int i;
	for (i = 0; i < count_words(); ++i) {
		printf("%d\t%s\n", i, kWords[i]);	/* tab-separated */
	}
	printf("hello from tabs.c ✔\n");
	return 0;
}
