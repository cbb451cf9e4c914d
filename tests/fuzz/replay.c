/* replay.c - runs the fuzz target on files without libFuzzer: every input that once crashed
** it (tests/fuzz/regressions/) is replayed by ctest, so a fixed crash stays fixed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    size_t got = data != NULL ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    if (data == NULL || got != (size_t)n)
        return 1;
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    printf("ok   %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    int failed = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        if (dir == NULL) {
            failed |= replay(argv[i]);
            count++;
            continue;
        }
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed |= replay(path);
            count++;
        }
        closedir(dir);
    }
    printf("%d inputs replayed\n", count);
    return failed || count == 0;
}
