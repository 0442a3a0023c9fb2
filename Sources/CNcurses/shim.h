/*
 * CNcurses: the ncursesw system library as Swift sees it.
 *
 * SwiftPM drops pkg-config's -D flags, so the wide-character switches are set
 * here before <ncursesw/curses.h>. Everything Swift cannot import (macros with
 * arguments, A_* attribute bit macros, concurrency-unsafe globals such as
 * stdscr/LINES/COLS/COLORS) is wrapped as a `static inline` function with a
 * `cd_` prefix. Only the Terminal target imports this module.
 */
#ifndef CARDEALER_CNCURSES_SHIM_H
#define CARDEALER_CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/* Attributes (NCURSES_BITS macros are not importable). */
static inline attr_t cd_a_normal(void) { return A_NORMAL; }
static inline attr_t cd_a_bold(void) { return A_BOLD; }
static inline attr_t cd_a_reverse(void) { return A_REVERSE; }
static inline attr_t cd_a_dim(void) { return A_DIM; }
static inline attr_t cd_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cd_a_italic(void) { return A_ITALIC; }

/* Globals that Swift 6 rejects as not concurrency-safe. */
static inline WINDOW *cd_stdscr(void) { return stdscr; }
static inline int cd_lines(void) { return LINES; }
static inline int cd_cols(void) { return COLS; }
static inline int cd_colors(void) { return COLORS; }
static inline int cd_color_pairs(void) { return COLOR_PAIRS; }
static inline FILE *cd_stdin_file(void) { return stdin; }
static inline FILE *cd_stdout_file(void) { return stdout; }

/* Function-like macros. */
static inline void cd_getmaxyx(WINDOW *win, int *y, int *x) { getmaxyx(win, *y, *x); }
static inline int cd_get_wch(wint_t *wch) { return wget_wch(stdscr, wch); }
static inline int cd_attr_set(attr_t attrs, short pair) { return wattr_set(stdscr, attrs, pair, NULL); }
static inline int cd_mvaddnwstr(int y, int x, const wchar_t *s, int n) { return mvwaddnwstr(stdscr, y, x, s, n); }
static inline int cd_addnwstr(const wchar_t *s, int n) { return waddnwstr(stdscr, s, n); }
static inline int cd_move(int y, int x) { return wmove(stdscr, y, x); }

/*
 * One terminal cell from up to CCHARW_MAX scalars: s[0] is the spacing one and sets the width
 * (ncurses measures a cell by its first character alone); s[1...] are stored after it as they are
 * and sent with it. setcchar() would stop at the first scalar that has a width of its own (an
 * emoji after a ZWJ, which tmux joins onto the cell), so the rest are filled in here.
 */
static inline int cd_add_cell(const wchar_t *s, int n, attr_t attrs, short pair) {
    wchar_t base[2] = { s[0], L'\0' };
    cchar_t cell;
    if (n < 1 || n > CCHARW_MAX || setcchar(&cell, base, attrs, pair, NULL) == ERR) return ERR;
    for (int i = 1; i < n; i++) cell.chars[i] = s[i];
    return wadd_wch(stdscr, &cell);
}
static inline int cd_erase(void) { return werase(stdscr); }
static inline int cd_refresh(void) { return wrefresh(stdscr); }
static inline int cd_key_f(int n) { return KEY_F(n); }

/* Mouse wheel: BUTTON4/BUTTON5 are NCURSES_MOUSE_MASK macros. */
static inline mmask_t cd_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cd_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t cd_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t cd_wheel_mask(void) { return BUTTON4_PRESSED | BUTTON5_PRESSED; }

/* Line drawing (ACS_* index the acs_map array through a macro). */
static inline chtype cd_acs_hline(void) { return ACS_HLINE; }
static inline chtype cd_acs_vline(void) { return ACS_VLINE; }

/* glibc wcwidth (needs _XOPEN_SOURCE, so it is not visible to Swift directly): how ncurses measures. */
int wcwidth(wchar_t c);
static inline int cd_wcwidth(wchar_t c) { return wcwidth(c); }

/* The codeset of the current LC_CTYPE, e.g. "UTF-8". */
static inline const char *cd_codeset(void) { return nl_langinfo(CODESET); }

/* Whether the current terminal's terminfo entry has the string capability `name` ("cup", "smcup"). Declared here
   rather than by <term.h>, whose lower-case macros (lines, columns, tab…) would shadow names in Swift. */
extern char *tigetstr(const char *);
static inline int cd_has_string_capability(const char *name) {
    char *value = tigetstr(name);
    return value != NULL && value != (char *)-1;
}

#endif
