/*
 * The least a recorder built on pa_simple can cost: one thread that reads 20 ms
 * fragments with pa_simple_read and hands them to sf_writef_short, as parecord does
 * through the async API. No metering, no syncing, no bus. `make bench` measures it beside
 * voicememod and parecord, to tell what pa_simple itself costs from what voicememod adds.
 *
 *   simple-recorder DEVICE wav|flac CHANNELS FILE     (SIGTERM finalizes the file)
 */
#include <pulse/error.h>
#include <pulse/simple.h>
#include <signal.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stopping;

static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: simple-recorder DEVICE wav|flac CHANNELS FILE\n");
        return 2;
    }
    int channels = atoi(argv[3]);
    if (channels < 1 || channels > 2) {
        fprintf(stderr, "simple-recorder: CHANNELS is 1 or 2\n");
        return 2;
    }
    int container = strcmp(argv[2], "flac") == 0 ? SF_FORMAT_FLAC : SF_FORMAT_WAV;
    enum { rate = 48000, frames = rate / 50 };
    pa_sample_spec spec = { PA_SAMPLE_S16LE, rate, (uint8_t)channels };
    pa_buffer_attr attributes = { (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, (uint32_t)-1,
                                  (uint32_t)(frames * channels * 2) };
    int error;
    pa_simple *stream = pa_simple_new(NULL, "simple-recorder", PA_STREAM_RECORD, argv[1], "reference", &spec, NULL,
                                      &attributes, &error);
    if (!stream) {
        fprintf(stderr, "simple-recorder: %s\n", pa_strerror(error));
        return 1;
    }
    SF_INFO info = { .samplerate = rate, .channels = channels, .format = container | SF_FORMAT_PCM_16 };
    SNDFILE *file = sf_open(argv[4], SFM_WRITE, &info);
    if (!file) {
        fprintf(stderr, "simple-recorder: %s\n", sf_strerror(NULL));
        return 1;
    }
    struct sigaction action = { .sa_handler = stop };
    sigaction(SIGTERM, &action, NULL);
    static short buffer[frames * 2];
    while (!stopping) {
        if (pa_simple_read(stream, buffer, (size_t)(frames * channels * 2), &error) < 0) {
            fprintf(stderr, "simple-recorder: %s\n", pa_strerror(error));
            break;
        }
        sf_writef_short(file, buffer, frames);
    }
    sf_close(file);
    pa_simple_free(stream);
    return 0;
}
