import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { generateSettingsDocs } from '../../scripts/settings-docs';
import { loadConfig } from '../../src/platform/config';
import { FEATURES } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';

describe('settings docs made from the features\' settings', () => {
  it('the committed .env.example and README settings table are what the schemas make (npm run settings:docs rewrites them)', () => {
    const stale = Object.entries(generateSettingsDocs())
      .filter(([file, text]) => readFileSync(file, 'utf8') !== text)
      .map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it('.env.example, copied to .env as it is, configures exactly what no setting at all does', () => {
    const example = parseEnv(readFileSync('.env.example', 'utf8'));
    expect(loadConfig(example)).toEqual(loadConfig({}));
  });

  it('every variable has a description', () => {
    const settings = Object.values(FEATURES).flatMap((f) => settingsIn(f.settings));
    expect(settings.length).toBeGreaterThan(60);
    expect(settings.filter((s) => !s.doc.description.trim()).map((s) => s.variable)).toEqual([]);
  });
});
