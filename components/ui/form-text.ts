// A form field's text: FormData gives a string, a file or nothing.
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value : "";
}
