// Test-only (GnomeShellTests): shows the extension's preferences page on a display (GTK 4 and
// libadwaita, as in the Extensions app), types a hotkey into its row and applies it, as a person
// would; prints the key's value afterwards.
//   gjs apply-hotkey.js EXTENSION_DIR TEXT   (the imports.* form, which GNOME 43 installs)
imports.gi.versions.Gtk = '4.0';
const {Adw, Gio} = imports.gi;

const [dir, text] = ARGV;
Adw.init();
imports.searchPath.unshift(dir);
const Preferences = imports.preferences;
const schemas = Gio.SettingsSchemaSource.new_from_directory(
    `${dir}/schemas`, Gio.SettingsSchemaSource.get_default(), false);
const settings = new Gio.Settings({
    settings_schema: schemas.lookup('org.gnome.shell.extensions.voicememo', false),
});
const window = new Adw.PreferencesWindow();
const page = Preferences.buildPage(settings);
window.add(page);
window.present();
page.hotkeyRow.text = text;
page.hotkeyRow.emit('apply');
Gio.Settings.sync();
print(JSON.stringify({
    hotkey: settings.get_strv(Preferences.HOTKEY),
    marked: page.hotkeyRow.has_css_class('error'),
}));
