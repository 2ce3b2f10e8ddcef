// Unit tests of the GNOME Shell extension's shared logic (data/gnome-shell/presentation.js,
// and the hotkey's parsing in preferences.js),
// run by gjs without a shell: `gjs -m presentation-test.js DIR...`, each DIR holding one
// built form of the extension (the ES module of GNOME 45+ or the imports.* form of 43-44;
// the form is read from its metadata.json). Prints one line per failure and the plain
// closing line `N passed, N failed`; exits 1 on any failure.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import System from 'system';

let passed = 0;
let failed = 0;

function check(name, actual, expected) {
    const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
    if (a === e) {
        passed += 1;
    } else {
        failed += 1;
        print(`FAIL ${name}: got ${a}, expected ${e}`);
    }
}

// The preferences page is GTK 4's, as in the Extensions app.
imports.gi.versions.Gtk = '4.0';

/** The form's name and its modules `names` (presentation, preferences). */
async function load(dir, names) {
    const [, bytes] = Gio.File.new_for_path(`${dir}/metadata.json`).load_contents(null);
    const versions = JSON.parse(new TextDecoder().decode(bytes))['shell-version'].map(Number);
    const modules = [];
    if (versions.every(version => version >= 45)) {
        for (const name of names)
            modules.push(await import(Gio.File.new_for_path(`${dir}/${name}.js`).get_uri()));
        return [`ES module (${versions.join(', ')})`, ...modules];
    }
    imports.searchPath.unshift(dir);
    for (const name of names)
        modules.push(imports[name]);
    imports.searchPath.shift();
    return [`imports.* (${versions.join(', ')})`, ...modules];
}

function testPreferences(form, Preferences) {
    const t = name => `${form}: ${name}`;
    // The hotkey as typed, in GTK's spelling, which mutter reads; empty is none; nonsense is refused.
    check(t('hotkey key'), Preferences.HOTKEY, 'toggle-recording');
    const hotkeys = [['<Super><Alt>r', '<Alt><Super>r'], ['<Super>F8', '<Super>F8'], [' <Primary>m ', '<Control>m'],
        ['', ''], ['   ', ''], ['nonsense<', null], ['<Super>', null]];
    for (const [text, accelerator] of hotkeys)
        check(t(`hotkey ${JSON.stringify(text)}`), Preferences.acceleratorFromText(text), accelerator);
}

function testForm(form, P) {
    const t = name => `${form}: ${name}`;
    // The icons: one per state, symbolic; no daemon (null) or an unknown state is idle.
    for (const state of P.STATES)
        check(t(`icon of ${state}`), P.iconName(state), `voicememo-${state}-symbolic`);
    check(t('icon without a daemon'), P.iconName(null), 'voicememo-idle-symbolic');
    check(t('icon of an unknown state'), P.iconName('flying'), 'voicememo-idle-symbolic');

    // The clock beside the icon: while recording or paused only; moving while recording.
    check(t('clock shown'), P.STATES.filter(P.showsClock), ['recording', 'paused']);
    check(t('clock ticks'), P.STATES.filter(P.clockTicks), ['recording']);
    check(t('level shown'), P.STATES.filter(P.showsLevel), ['recording']);
    check(t('no clock without a daemon'), P.showsClock(undefined), false);

    // The clock's text, as the daemon's ClockText spells it.
    const clocks = [[0, '0:00'], [5.9, '0:05'], [42, '0:42'], [61, '1:01'], [599.99, '9:59'], [3599, '59:59'],
        [3600, '1:00:00'], [3723, '1:02:03'], [36000, '10:00:00'], [-3, '0:00'], [NaN, '0:00'], [Infinity, '0:00']];
    for (const [seconds, text] of clocks)
        check(t(`clock(${seconds})`), P.clock(seconds), text);

    // Sensitivity: exactly the tray menu's (TrayPresentation.isEnabled), state by state.
    const enabled = {
        idle: ['record', 'recordCall'],
        scheduled: ['stop', 'cancel'],
        recording: ['pause', 'stop', 'cancel'],
        paused: ['resume', 'stop', 'cancel'],
        interrupted: ['stop', 'cancel'],
    };
    const actions = P.ACTIONS.map(entry => entry.action);
    check(t('actions'), actions, ['record', 'recordCall', 'pause', 'resume', 'stop', 'cancel']);
    for (const state of P.STATES)
        check(t(`enabled in ${state}`), actions.filter(action => P.isEnabled(action, state)), enabled[state]);
    check(t('enabled without a daemon'), actions.filter(action => P.isEnabled(action, null)), enabled.idle);
    check(t('unknown action'), P.isEnabled('dance', 'idle'), false);

    // The level bar: -60 dB and below empty, 0 dB full, the loudest channel counts.
    check(t('level of silence'), P.levelFraction([-160, -160]), 0);
    check(t('level at -30 dB'), P.levelFraction([-30]), 0.5);
    check(t('level, loudest channel'), P.levelFraction([-60, -15]), 0.75);
    check(t('level over full scale'), P.levelFraction([3]), 1);
    check(t('level of nothing'), P.levelFraction([]), 0);
    check(t('level of NaN'), P.levelFraction([NaN]), 0);

    // A memo's label: its title, else its date; then its length as the tray shows it.
    check(t('memo with a title'), P.memoLabel('Groceries', 0, 62.7), 'Groceries (1:02)');
    check(t('memo title trimmed'), P.memoLabel('  Call  ', 0, 3723), 'Call (1:02:03)');
    const created = new Date(2026, 11, 4, 9, 5).getTime() * 1000;
    check(t('memo without a title'), P.memoLabel('', created, 5), '2026-12-04 09:05 (0:05)');

    // The input's line.
    check(t('live input'), P.inputLabel('alsa_input.usb', 'other'), 'Input: alsa_input.usb');
    check(t('chosen input'), P.inputLabel('', 'other'), 'Input: other');
    check(t('default input'), P.inputLabel('', ''), 'Input: default input');
}

const dirs = ARGV.length > 0 ? ARGV : [GLib.get_current_dir()];
for (const dir of dirs) {
    const [form, P, Preferences] = await load(dir, ['presentation', 'preferences']);
    testForm(form, P);
    testPreferences(form, Preferences);
}
print(`${passed} passed, ${failed} failed`);
System.exit(failed === 0 && passed > 0 ? 0 : 1);
