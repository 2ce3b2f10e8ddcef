// The preferences' entry point for GNOME 43 and 44 (imports.*); prefs-45.js is the same for
// GNOME 45 and later. The page is shared (preferences.js).
const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();
const {buildPage} = Me.imports.preferences;

/** Nothing to prepare; the Extensions app calls fillPreferencesWindow. */
function init() {
}

/** Adds the page to the Extensions app's window. */
function fillPreferencesWindow(window) {
    window.add(buildPage(ExtensionUtils.getSettings()));
}
