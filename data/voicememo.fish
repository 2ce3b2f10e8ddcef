# fish completion for voicememo; installed as
# $(datadir)/fish/vendor_completions.d/voicememo.fish. A test holds it to the CLI's
# command table (`voicememo --help` and each command's `--help`).

function __voicememo_memo_ids
    voicememo list 2>/dev/null | string replace -r '\s.*' ''
end

function __voicememo_sources
    pactl list short sources 2>/dev/null | cut -f2
end

set -l commands record stop pause resume toggle cancel status meter watch list peaks play rename trim delete transcribe transcript

complete -c voicememo -f
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -l help -d 'Show the commands'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -l version -d 'Show the release'
complete -c voicememo -n "__fish_seen_subcommand_from $commands" -l help -d 'Show the command\'s options'

complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a record -d 'Start recording a memo'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a stop -d 'Finish the open memo and save it'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a pause -d 'Pause the recording'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a resume -d 'Resume a paused recording'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a toggle -d 'Start or stop recording'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a cancel -d 'Stop and delete the open memo'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a status -d 'Show what the recorder is doing'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a meter -d 'Show the input level'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Print the recorder\'s events'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a list -d 'List the memos'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a peaks -d 'Print a memo\'s waveform'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a play -d 'Play a memo'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a rename -d 'Rename a memo'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a trim -d 'Keep part of a memo, or cut its silent ends'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a delete -d 'Move a memo to the trash'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a transcribe -d 'Transcribe a memo on this machine'
complete -c voicememo -n "not __fish_seen_subcommand_from $commands" -a transcript -d 'Print a memo\'s transcript'

complete -c voicememo -n '__fish_seen_subcommand_from record' -l format -x -a 'opus flac wav vorbis mp3' -d 'File format'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l rate -x -a '8000 16000 22050 24000 44100 48000 96000' -d 'Sample rate (Hz)'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l channels -x -a '1 2' -d 'Channels'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l quality -x -a 'min low medium high max' -d 'Encoder quality'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l title -x -d 'The memo\'s title'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l source -x -a '(__voicememo_sources)' -d 'Input to record'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l duration -x -d 'Stop after SECONDS'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l at -x -d 'Start at +SECONDS, +MINUTESm, HH:MM or a Unix time'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l on-sound -d 'Wait for sound before recording'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l threshold -x -d 'Sound level that starts it (dBFS)'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l pre-roll -x -d 'Seconds kept from before the sound'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l system-audio -d 'Record a call: microphone and system audio'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l split -d 'Microphone left, system audio right'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l noise-suppression -d 'Take background noise out of the microphone'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l auto-gain -d 'Bring the voice to one speech level'
complete -c voicememo -n '__fish_seen_subcommand_from record' -l transcribe -d 'Transcribe the memo when it ends'

complete -c voicememo -n '__fish_seen_subcommand_from status' -l json -d 'Print JSON'
complete -c voicememo -n '__fish_seen_subcommand_from status' -l format -x -d 'One-line TEMPLATE, such as {state} {time}'
complete -c voicememo -n '__fish_seen_subcommand_from list' -l search -x -d 'Only memos whose title, name or words hold TEXT'
complete -c voicememo -n '__fish_seen_subcommand_from list' -l json -d 'Print JSON'
complete -c voicememo -n '__fish_seen_subcommand_from watch' -l json -d 'Print JSON'
complete -c voicememo -n '__fish_seen_subcommand_from peaks' -l count -x -d 'Number of peaks'
complete -c voicememo -n '__fish_seen_subcommand_from peaks' -l json -d 'Print JSON'
complete -c voicememo -n '__fish_seen_subcommand_from trim' -l silence -d 'Cut the silent start and end'
complete -c voicememo -n '__fish_seen_subcommand_from play' -l speed -x -a '0.5 0.75 1 1.25 1.5 2' -d 'Times as fast as recorded, pitch kept (remembered)'
complete -c voicememo -n '__fish_seen_subcommand_from delete' -l permanently -d 'Delete instead of moving to the trash'
complete -c voicememo -n '__fish_seen_subcommand_from transcribe' -l wait -d 'Wait for the transcript and print it'
complete -c voicememo -n '__fish_seen_subcommand_from transcript' -l format -x -a 'text vtt srt json' -d 'Words, subtitles (WebVTT, SubRip) or JSON'

complete -c voicememo -n '__fish_seen_subcommand_from peaks play trim transcribe transcript; and test (count (commandline -opc)) -eq 2' -a 'latest (__voicememo_memo_ids)'
complete -c voicememo -n '__fish_seen_subcommand_from rename; and test (count (commandline -opc)) -eq 2' -a '(__voicememo_memo_ids)'
complete -c voicememo -n '__fish_seen_subcommand_from delete' -a '(__voicememo_memo_ids)'
