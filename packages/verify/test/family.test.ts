import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { knownVendor, vendorFamily } from '../src/family.js';

const family = suite('vendor families');

family('model ids, vendors and aliases read as their vendor: same vendor, same family', () => {
  const cases: Array<[string, string]> = [
    ['anthropic', 'anthropic'],
    ['claude-opus-4-1', 'anthropic'],
    ['Claude', 'anthropic'],
    ['sonnet', 'anthropic'],
    ['haiku-3.5', 'anthropic'],
    ['openai', 'openai'],
    ['gpt-5', 'openai'],
    ['gpt-5.1-codex', 'openai'],
    ['GPT4o', 'openai'],
    ['o3-mini', 'openai'],
    ['o1', 'openai'],
    ['codex', 'openai'],
    ['google', 'google'],
    ['gemini-2.5-pro', 'google'],
    ['gemma3:27b', 'google'],
    ['codegemma', 'google'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'meta'],
    ['ollama:llama3.1', 'meta'],
    ['qwen2.5-coder:32b', 'alibaba'],
    ['deepseek-r1', 'deepseek'],
    ['mixtral-8x7b', 'mistral'],
    ['grok-4', 'xai'],
    ['phi4', 'microsoft'],
    ['openrouter/anthropic/claude-3.7', 'anthropic'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'anthropic'],
    ['bedrock/us.meta.llama3-2', 'meta'],
    ['Claude Sonnet 4', 'anthropic'],
    ['Gemini 2.5 Pro', 'google'],
    ['gpt-4.1-mini', 'openai'],
    ['claude-3.5-sonnet', 'anthropic'],
    ['command-r-plus', 'cohere'],
    ['command-r', 'cohere'],
    ['amazon.nova-pro-v1:0', 'amazon'],
  ];
  assert.equal(
    cases.map(([name]) => [name, knownVendor(name)]),
    cases,
  );
});

family('a name the table does not know stands for itself, lower-cased; an alias must end where a word ends', () => {
  assert.is(knownVendor('f1'), null);
  assert.is(vendorFamily('Local'), 'local');
  assert.is(vendorFamily('gptq-finetune'), 'gptq-finetune', 'gpt followed by a letter is another word');
  assert.is(vendorFamily('o3pro'), 'o3pro');
  assert.is(vendorFamily('phillips'), 'phillips');
  for (const word of ['metadata', 'metal', 'ollama', 'bardic', 'grokking', 'commander'])
    assert.is(knownVendor(word), null, word);
  assert.is(vendorFamily('gemma'), 'google');
});

family.run();
