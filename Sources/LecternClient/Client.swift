public enum LecternClientPlaceholder {}
