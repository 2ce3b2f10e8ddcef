// The extension's entry point for GNOME 43 and 44, which load extensions through imports.*
// (extension-45.js is the same for GNOME 45 and later); the indicator is shared.
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;
const Me = ExtensionUtils.getCurrentExtension();
const {Indicator} = Me.imports.indicator;

class VoiceMemoExtension {
    enable() {
        this._indicator = new Indicator(Me.dir, ExtensionUtils.getSettings());
        Main.panel.addToStatusArea('voicememo', this._indicator);
    }

    disable() {
        this._indicator.destroy();
        this._indicator = null;
    }
}

/** The shell's entry point: one object, enabled and disabled as the user says. */
function init() {
    return new VoiceMemoExtension();
}
