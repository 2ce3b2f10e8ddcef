// The extension's entry point for GNOME 45 and later, which load extensions as ES modules
// (extension-43.js is the same for GNOME 43 and 44); the indicator is shared.
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Indicator} from './indicator.js';

export default class VoiceMemoExtension extends Extension {
    enable() {
        this._indicator = new Indicator(this.dir, this.getSettings());
        Main.panel.addToStatusArea('voicememo', this._indicator);
    }

    disable() {
        this._indicator.destroy();
        this._indicator = null;
    }
}
