/*
 * The least a recorder built on pa_simple can cost while keeping voicememod's promise of
 * durability: one thread that reads 20 ms fragments with pa_simple_read and hands them to
 * sf_writef_short, as parecord does through the async API, and once a second of frames
 * written (after the write that completes it, as voicememod's CapturePolicy counts) brings
 * a WAV header up to date (SFC_UPDATE_HEADER_NOW) and fsyncs the file, as voicememod's
 * SoundFileWriter.synchronize() does. The file is opened the way voicememod opens it
 * (open(2), mode 0600, then sf_open_fd) and WAV is written as voicememod writes it, RF64
 * that stays a plain WAV until 4 GiB (SFC_RF64_AUTO_DOWNGRADE). No metering, no bus.
 * `make bench` measures it beside voicememod and parecord, to tell what pa_simple and
 * the durability policy cost from what voicememod adds.
 *
 *   simple-recorder DEVICE wav|flac CHANNELS FILE     (SIGTERM finalizes the file)
 */
#include <errno.h>
#include <fcntl.h>
#include <pulse/error.h>
#include <pulse/simple.h>
#include <signal.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    int isWave = strcmp(argv[2], "flac") != 0;
    int container = isWave ? SF_FORMAT_RF64 : SF_FORMAT_FLAC;
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
    int descriptor = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (descriptor < 0) {
        fprintf(stderr, "simple-recorder: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    SF_INFO info = { .samplerate = rate, .channels = channels, .format = container | SF_FORMAT_PCM_16 };
    SNDFILE *file = sf_open_fd(descriptor, SFM_WRITE, &info, 0);
    if (!file) {
        fprintf(stderr, "simple-recorder: %s\n", sf_strerror(NULL));
        return 1;
    }
    // Before the first frame, as voicememod does: an RF64 file that is a plain WAV until 4 GiB.
    if (isWave) sf_command(file, SFC_RF64_AUTO_DOWNGRADE, NULL, SF_TRUE);
    struct sigaction action = { .sa_handler = stop };
    sigaction(SIGTERM, &action, NULL);
    static short buffer[frames * 2];
    long framesSinceSync = 0;
    while (!stopping) {
        if (pa_simple_read(stream, buffer, (size_t)(frames * channels * 2), &error) < 0) {
            fprintf(stderr, "simple-recorder: %s\n", pa_strerror(error));
            break;
        }
        if (sf_writef_short(file, buffer, frames) != frames) {
            fprintf(stderr, "simple-recorder: %s\n", sf_strerror(file));
            break;
        }
        framesSinceSync += frames;
        if (framesSinceSync >= rate) {
            // Only WAV keeps its length in a header to rewrite; FLAC's is written at the start.
            if (isWave) sf_command(file, SFC_UPDATE_HEADER_NOW, NULL, 0);
            if (fsync(descriptor) != 0) {
                fprintf(stderr, "simple-recorder: cannot sync: %s\n", strerror(errno));
                break;
            }
            framesSinceSync = 0;
        }
    }
    sf_close(file);
    close(descriptor);
    pa_simple_free(stream);
    return 0;
}
