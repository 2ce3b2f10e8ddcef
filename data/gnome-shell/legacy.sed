# Turns an ES module of this extension (GNOME 45 and later) into the imports.* form that
# GNOME 43 and 44 load: each import becomes a lookup, each export a top-level `var` or
# function (what imports.* exports). Only the import shapes these files use are known;
# the Makefile fails if an `import` or `export` is left over.
s|^import \([A-Za-z]*\) from 'gi://\([A-Za-z]*\)';$|const \1 = imports.gi.\2;|
s|^import \* as \([A-Za-z]*\) from 'resource:///org/gnome/shell/ui/\([A-Za-z]*\)\.js';$|const \1 = imports.ui.\2;|
s|^import \* as \([A-Za-z]*\) from '\./\([A-Za-z]*\)\.js';$|const \1 = imports.misc.extensionUtils.getCurrentExtension().imports.\2;|
s|^export function |function |
s|^export const |var |
s|^export class \([A-Za-z]*\)|var \1 = class \1|
s|^export var \([A-Za-z]*\) = GObject.registerClass(|var \1 = GObject.registerClass(|
