// The preferences' entry point for GNOME 45 and later (ES modules); prefs-43.js is the same
// for GNOME 43 and 44. The page is shared (preferences.js).
import {ExtensionPreferences} from 'resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js';
import {buildPage} from './preferences.js';

export default class VoiceMemoPreferences extends ExtensionPreferences {
    fillPreferencesWindow(window) {
        window.add(buildPage(this.getSettings()));
    }
}
