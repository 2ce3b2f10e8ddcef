// What the top-bar indicator shows for the recorder's state, and which menu actions
// apply: the rules of the daemon's tray item (Sources/VoiceMemoCore/TrayPresentation.swift)
// spelled once for both forms of the extension, free of the shell, so gjs tests them alone.
// Written as an ES module (GNOME 45 and later); the Makefile derives the imports.* form of
// GNOME 43 and 44 from it (legacy.sed).

/** The recorder's states, as the State property spells them. */
export const STATES = ['idle', 'scheduled', 'recording', 'paused', 'interrupted'];

/** The menu's recorder actions, in the tray menu's order, with its labels. */
export const ACTIONS = [
    {action: 'record', label: 'Record'},
    {action: 'recordCall', label: 'Record call'},
    {action: 'pause', label: 'Pause'},
    {action: 'resume', label: 'Resume'},
    {action: 'stop', label: 'Stop'},
    {action: 'cancel', label: 'Cancel'},
];

/** A state the indicator knows; anything else (no daemon, an unknown word) reads as idle. */
export function knownState(state) {
    return STATES.includes(state) ? state : 'idle';
}

/** The symbolic icon's name for `state`, from the project's own icons (data/icons). */
export function iconName(state) {
    return `voicememo-${knownState(state)}-symbolic`;
}

/** Whether the elapsed time shows beside the icon: while a memo is open and has audio. */
export function showsClock(state) {
    const known = knownState(state);
    return known === 'recording' || known === 'paused';
}

/** Whether the clock moves, so the time is read once a second. */
export function clockTicks(state) {
    return knownState(state) === 'recording';
}

/** Whether the level shows: only while audio is captured. */
export function showsLevel(state) {
    return knownState(state) === 'recording';
}

/** Whether `action` does something in `state` (the menu greys the others out), as the tray's. */
export function isEnabled(action, state) {
    const known = knownState(state);
    switch (action) {
    case 'record':
    case 'recordCall':
        return known === 'idle';
    case 'pause':
        return known === 'recording';
    case 'resume':
        return known === 'paused';
    case 'stop':
    case 'cancel':
        return known !== 'idle';
    default:
        return false;
    }
}

/**
 * Seconds as the daemon's clocks show them: `M:SS`, or `H:MM:SS` from an hour on. A
 * running clock counts whole seconds passed (`floor`), a memo's length rounds to the
 * nearest (`round`); a value no clock shows (NaN, negative) reads as 0.
 */
export function clock(seconds, rounding = Math.floor) {
    const whole = Number.isFinite(seconds) ? rounding(Math.min(Math.max(seconds, 0), 1e12)) : 0;
    const hours = Math.floor(whole / 3600);
    const minutes = Math.floor(whole / 60) % 60;
    const rest = whole % 60;
    const two = value => (value < 10 ? `0${value}` : `${value}`);
    return hours > 0 ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
}

/**
 * The level bar's fill, 0 to 1, from the loudest channel's peak in dBFS: -60 dB and
 * below is empty, 0 dB full, linear in dB between (how a meter reads speech).
 */
export function levelFraction(peaksDB) {
    const values = Array.from(peaksDB ?? []).filter(Number.isFinite);
    if (values.length === 0)
        return 0;
    const loudest = Math.max(...values);
    return Math.min(Math.max((loudest + 60) / 60, 0), 1);
}

/**
 * A memo's menu label: its title, or else the date it was recorded (`created` is
 * microseconds since the epoch, the Memo interface's Created), then its length.
 */
export function memoLabel(title, created, duration) {
    let name = (title ?? '').trim();
    if (name === '') {
        const date = new Date(Number(created ?? 0) / 1000);
        const two = value => (value < 10 ? `0${value}` : `${value}`);
        name = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
            `${two(date.getHours())}:${two(date.getMinutes())}`;
    }
    return `${name} (${clock(duration)})`;
}

/** The input's line: the live input while recording, else the chosen one, else the default. */
export function inputLabel(activeSource, source) {
    const name = activeSource || source;
    return `Input: ${name || 'default input'}`;
}
