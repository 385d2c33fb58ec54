/** Light, dark, or the system's choice: kept in this browser, applied as <html data-theme>. */

export type Theme = "auto" | "light" | "dark";

const KEY = "hms-theme";

export function storedTheme(): Theme {
  const stored = localStorage.getItem(KEY);
  return stored === "light" || stored === "dark" ? stored : "auto";
}

export function nextTheme(theme: Theme): Theme {
  return theme === "auto" ? "light" : theme === "light" ? "dark" : "auto";
}

export function applyTheme(theme: Theme): void {
  if (theme === "auto") {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, theme);
    document.documentElement.dataset.theme = theme;
  }
}
