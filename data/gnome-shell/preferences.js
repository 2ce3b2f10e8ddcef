// The extension's preferences page (GTK 4 and libadwaita, in the Extensions app's process,
// never in the shell's): the hotkey bound to Toggle. Written as an ES module (GNOME 45 and
// later); the Makefile derives the imports.* form of GNOME 43 and 44 from it (legacy.sed).
import Adw from 'gi://Adw';
import Gtk from 'gi://Gtk';

/** The schema key that holds the hotkey, as the indicator reads it. */
export const HOTKEY = 'toggle-recording';

/**
 * The accelerator `text` names in GTK's spelling (`<Super><Alt>r` reads back as
 * `<Alt><Super>r`), `''` for none, or null for text that names no key.
 */
export function acceleratorFromText(text) {
    const trimmed = text.trim();
    if (trimmed === '')
        return '';
    const [parsed, key, modifiers] = Gtk.accelerator_parse(trimmed);
    if (!parsed || key === 0)
        return null;
    return Gtk.accelerator_name(key, modifiers);
}

/** The page: one row with the hotkey; applying a valid one saves it, an invalid one is marked. */
export function buildPage(settings) {
    const page = new Adw.PreferencesPage({title: 'Voice Memos'});
    const group = new Adw.PreferencesGroup({
        title: 'Hotkey',
        // Read as Pango markup: the brackets are escaped.
        description: 'Starts a recording, or stops and saves it, anywhere in the session. ' +
            'For example &lt;Super&gt;&lt;Alt&gt;r; empty for none.',
    });
    const row = new Adw.EntryRow({title: 'Toggle recording', show_apply_button: true});
    row.text = settings.get_strv(HOTKEY)[0] ?? '';
    row.connect('apply', () => {
        const accelerator = acceleratorFromText(row.text);
        if (accelerator === null) {
            row.add_css_class('error');
            return;
        }
        row.remove_css_class('error');
        settings.set_strv(HOTKEY, accelerator === '' ? [] : [accelerator]);
    });
    group.add(row);
    page.add(group);
    page.hotkeyRow = row;
    return page;
}
