// The top-bar indicator: the recorder's icon, its clock and level, and its menu. It talks
// to voicememod only through org.example.VoiceMemo on the session bus (a proxy built from
// the contract's own XML, shipped beside this file), never through the CLI; while it
// exists it owns org.example.VoiceMemo.ShellIndicator, so the daemon withdraws its tray
// item and the top bar shows one recorder, not two.
// Written as an ES module (GNOME 45 and later); the Makefile derives the imports.* form of
// GNOME 43 and 44 from it (legacy.sed).
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import St from 'gi://St';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import * as P from './presentation.js';

const BUS_NAME = 'org.example.VoiceMemo';
const OBJECT_PATH = '/org/example/VoiceMemo';
const MEMO_INTERFACE = 'org.example.VoiceMemo.Memo';
/** The name the daemon watches: while it has an owner, the tray item stays withdrawn. */
export const INDICATOR_NAME = 'org.example.VoiceMemo.ShellIndicator';
/** The key in the extension's schema that holds the hotkey bound to Toggle. */
export const HOTKEY = 'toggle-recording';
const NEWEST_COUNT = 5;
/** The level bar's full height, in pixels. */
const LEVEL_HEIGHT = 16;

export var Indicator = GObject.registerClass(
class VoiceMemoIndicator extends PanelMenu.Button {
    /**
     * `dir` is the extension's folder (a Gio.File: its icons and the contract's XML),
     * `settings` its GSettings (the hotkey).
     */
    _init(dir, settings) {
        super._init(0.0, 'Voice Memos');
        this._dir = dir;
        this._settings = settings;
        this._state = 'idle';
        this._time = 0;
        this._clockSource = 0;
        this._isWatchingLevels = false;
        this._memosSerial = 0;
        this._cancellable = new Gio.Cancellable();

        const box = new St.BoxLayout({style_class: 'panel-status-menu-box'});
        this._icon = new St.Icon({style_class: 'system-status-icon'});
        box.add_child(this._icon);
        this._level = new St.Widget({
            style: 'background-color: #ed333b; border-radius: 1px;',
            width: 3, height: 0, y_align: Clutter.ActorAlign.CENTER, visible: false,
        });
        box.add_child(this._level);
        this._label = new St.Label({y_align: Clutter.ActorAlign.CENTER, visible: false});
        box.add_child(this._label);
        this.add_child(box);

        this._buildMenu();
        this._show();

        this._nameId = Gio.bus_own_name(Gio.BusType.SESSION, INDICATOR_NAME, Gio.BusNameOwnerFlags.NONE,
            null, null, null);
        Main.wm.addKeybinding(HOTKEY, this._settings, Meta.KeyBindingFlags.NONE,
            Shell.ActionMode.NORMAL | Shell.ActionMode.OVERVIEW | Shell.ActionMode.POPUP,
            () => this._call('Toggle', []));
        this._memoSignals = ['InterfacesAdded', 'InterfacesRemoved'].map(member =>
            Gio.DBus.session.signal_subscribe(BUS_NAME, 'org.freedesktop.DBus.ObjectManager', member,
                OBJECT_PATH, null, Gio.DBusSignalFlags.NONE, () => this._refreshMemos()));
        this._connectProxy();
    }

    _connectProxy() {
        const [, bytes] = this._dir.get_child('org.example.VoiceMemo.xml').load_contents(null);
        const VoiceMemoProxy = Gio.DBusProxy.makeProxyWrapper(new TextDecoder().decode(bytes));
        // Not started at construction: an idle desktop needs no daemon until Record.
        VoiceMemoProxy(Gio.DBus.session, BUS_NAME, OBJECT_PATH, (proxy, error) => {
            if (error) {
                if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                    logError(error, 'voicememo: no proxy for the recorder');
                return;
            }
            this._proxy = proxy;
            this._proxySignals = [
                proxy.connect('g-properties-changed', () => this._follow()),
                proxy.connect('notify::g-name-owner', () => {
                    // A new daemon knows nothing of our earlier WatchLevels.
                    this._isWatchingLevels = false;
                    this._follow();
                    this._refreshMemos();
                }),
            ];
            this._levelSignal = proxy.connectSignal('Levels', (_proxy, _sender, [, peaks]) =>
                this._showLevel(P.levelFraction(peaks)));
            this._follow();
            this._refreshMemos();
        }, this._cancellable, Gio.DBusProxyFlags.DO_NOT_AUTO_START_AT_CONSTRUCTION);
    }

    // MARK: Following the daemon

    /** The daemon's state, or idle when no daemon runs. */
    get state() {
        return this._proxy?.g_name_owner ? P.knownState(this._proxy.State) : 'idle';
    }

    _follow() {
        const state = this.state;
        if (state !== this._state) {
            this._state = state;
            if (!P.showsClock(state))
                this._time = 0;
            this._readTime();
        }
        this._updateLevelWatch();
        this._updateClockSource();
        this._show();
    }

    /** Reads CurrentTime (it emits no PropertiesChanged): once a second while recording. */
    _readTime() {
        if (!P.showsClock(this._state) || !this._proxy?.g_name_owner)
            return;
        Gio.DBus.session.call(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'Get',
            new GLib.Variant('(ss)', ['org.example.VoiceMemo', 'CurrentTime']), null,
            Gio.DBusCallFlags.NO_AUTO_START, -1, this._cancellable, (connection, result) => {
                try {
                    const [value] = connection.call_finish(result).deepUnpack();
                    if (P.showsClock(this._state)) {
                        this._time = value.unpack();
                        this._show();
                    }
                } catch (error) {
                    // Gone or cancelled: the name owner's change says what follows.
                }
            });
    }

    _updateClockSource() {
        const ticks = P.clockTicks(this._state);
        if (ticks && this._clockSource === 0) {
            this._clockSource = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 1000, () => {
                this._readTime();
                return GLib.SOURCE_CONTINUE;
            });
        } else if (!ticks && this._clockSource !== 0) {
            GLib.source_remove(this._clockSource);
            this._clockSource = 0;
        }
    }

    /** Levels go out only to callers that asked: ask while recording, and stop asking after. */
    _updateLevelWatch() {
        const wants = P.showsLevel(this._state);
        if (wants === this._isWatchingLevels)
            return;
        this._isWatchingLevels = wants;
        this._call(wants ? 'WatchLevels' : 'UnwatchLevels', [], {quiet: true});
        if (!wants)
            this._showLevel(0);
    }

    _showLevel(fraction) {
        this._level.height = Math.round(fraction * LEVEL_HEIGHT);
    }

    // MARK: The look

    _show() {
        const state = this._state;
        const file = this._dir.get_child('icons').get_child(`${P.iconName(state)}.svg`);
        this._icon.gicon = new Gio.FileIcon({file});
        this._label.visible = P.showsClock(state);
        this._label.text = P.showsClock(state) ? P.clock(this._time) : '';
        this._level.visible = P.showsLevel(state);
        for (const {action} of P.ACTIONS)
            this._actionItems[action].setSensitive(P.isEnabled(action, state));
        this._inputItem.label.text = P.inputLabel(this._proxy?.ActiveSource, this._proxy?.Source);
    }

    // MARK: The menu

    _buildMenu() {
        this._actionItems = {};
        for (const {action, label} of P.ACTIONS) {
            const item = new PopupMenu.PopupMenuItem(label);
            item.connect('activate', () => this._perform(action));
            this.menu.addMenuItem(item);
            this._actionItems[action] = item;
        }
        this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        this._memoSection = new PopupMenu.PopupMenuSection();
        this.menu.addMenuItem(this._memoSection);
        this._showMemos([]);
        this.menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        const folder = new PopupMenu.PopupMenuItem('Open memo folder');
        folder.connect('activate', () => this._openFolder());
        this.menu.addMenuItem(folder);
        this._inputItem = new PopupMenu.PopupMenuItem('', {reactive: false});
        this.menu.addMenuItem(this._inputItem);
        this.menu.connect('open-state-changed', (_menu, open) => {
            if (open)
                this._refreshMemos();
        });
    }

    _perform(action) {
        switch (action) {
        case 'record':
            this._call('Record', []);
            break;
        case 'recordCall':
            this._call('RecordWithOptions', [{'system-audio': new GLib.Variant('b', true)}]);
            break;
        default:
            this._call(action.charAt(0).toUpperCase() + action.slice(1), []);
        }
    }

    /** The five newest memos, read with ListMemos; a later answer replaces an earlier. */
    _refreshMemos() {
        if (!this._proxy?.g_name_owner) {
            this._showMemos([]);
            return;
        }
        const serial = ++this._memosSerial;
        this._proxy.ListMemosRemote(0, NEWEST_COUNT, 'newest', (result, error) => {
            if (serial !== this._memosSerial || this._cancellable.is_cancelled())
                return;
            this._showMemos(error ? [] : result[0]);
        }, this._cancellable);
    }

    _showMemos(memos) {
        this._memoSection.removeAll();
        if (memos.length === 0) {
            this._memoSection.addMenuItem(new PopupMenu.PopupMenuItem('No memos yet', {reactive: false}));
            return;
        }
        for (const [path, properties] of memos) {
            const value = name => properties[name]?.deepUnpack();
            const item = new PopupMenu.PopupMenuItem(
                P.memoLabel(value('Title'), value('Created'), value('Duration')));
            item.memoPath = path;
            item.connect('activate', () => this._play(path));
            this._memoSection.addMenuItem(item);
        }
    }

    _play(path) {
        Gio.DBus.session.call(BUS_NAME, path, MEMO_INTERFACE, 'Play', null, null, Gio.DBusCallFlags.NONE, -1,
            this._cancellable, (connection, result) => {
                try {
                    connection.call_finish(result);
                } catch (error) {
                    this._report(error);
                }
            });
    }

    _openFolder() {
        Gio.DBus.session.call(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'Get',
            new GLib.Variant('(ss)', ['org.example.VoiceMemo', 'Directory']), null, Gio.DBusCallFlags.NONE, -1,
            this._cancellable, (connection, result) => {
                try {
                    const [value] = connection.call_finish(result).deepUnpack();
                    const uri = Gio.File.new_for_path(value.unpack()).get_uri();
                    Gio.AppInfo.launch_default_for_uri(uri, global.create_app_launch_context(0, -1));
                } catch (error) {
                    this._report(error);
                }
            });
    }

    // MARK: Calls

    /**
     * Calls `method` of the recorder; a call with no daemon running starts it (D-Bus
     * activation). A failure shows once, as a notification with the daemon's message.
     */
    _call(method, args, {quiet = false} = {}) {
        if (!this._proxy) {
            if (!quiet)
                this._report(new Error('the recorder is not reachable on the session bus yet'));
            return;
        }
        this._proxy[`${method}Remote`](...args, (_result, error) => {
            if (error && !quiet && !this._cancellable.is_cancelled())
                this._report(error);
        }, this._cancellable);
    }

    _report(error) {
        if (error instanceof GLib.Error && error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
            return;
        if (error instanceof GLib.Error)
            Gio.DBusError.strip_remote_error(error);
        Main.notify('Voice Memos', error.message);
    }

    // MARK: Going away

    _onDestroy() {
        this._cancellable.cancel();
        if (this._clockSource !== 0)
            GLib.source_remove(this._clockSource);
        this._clockSource = 0;
        if (this._isWatchingLevels && this._proxy?.g_name_owner) {
            Gio.DBus.session.call(BUS_NAME, OBJECT_PATH, 'org.example.VoiceMemo', 'UnwatchLevels', null, null,
                Gio.DBusCallFlags.NO_AUTO_START, -1, null, null);
        }
        if (this._proxy) {
            this._proxySignals.forEach(id => this._proxy.disconnect(id));
            this._proxy.disconnectSignal(this._levelSignal);
            this._proxy = null;
        }
        this._memoSignals.forEach(id => Gio.DBus.session.signal_unsubscribe(id));
        Main.wm.removeKeybinding(HOTKEY);
        Gio.bus_unown_name(this._nameId);
        super._onDestroy();
    }
});
