import { MESSAGE_OVERHEAD_TOKENS, TokenCounter, encodingForChatModel, estimateTokensByChars } from '../../src/memory/tokens';

describe('token counting with the model’s real encoding', () => {
  const counter = new TokenCounter('gpt-4o-mini');

  it('uses o200k_base for the gpt-4o family and for models js-tiktoken does not know', () => {
    expect(counter.encodingName).toBe('o200k_base');
    expect(encodingForChatModel('gpt-4o')).toBe('o200k_base');
    expect(encodingForChatModel('my-local-llama')).toBe('o200k_base');
    expect(encodingForChatModel('gpt-4')).toBe('cl100k_base');
  });

  it('counts known o200k_base token sequences', () => {
    expect(counter.countText('hello world')).toBe(2);
    expect(counter.countText('')).toBe(0);
    // The same text costs a different number of tokens in the older encoding.
    expect(new TokenCounter('gpt-4').countText('Hello, my name is Lukas Brandt. 🙂')).not.toBe(
      counter.countText('Hello, my name is Lukas Brandt. 🙂'),
    );
  });

  it('treats special-token text in a customer message as ordinary text instead of throwing', () => {
    expect(counter.countText('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('adds the per-message framing, tool calls and name to a message’s cost', () => {
    const text = 'Where is my order?';
    expect(counter.countMessage({ content: text })).toBe(counter.countText(text) + MESSAGE_OVERHEAD_TOKENS);
    const withCall = counter.countMessage({
      content: '',
      tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'NW-482913' } }],
    });
    expect(withCall).toBeGreaterThan(MESSAGE_OVERHEAD_TOKENS + 5);
  });

  it('differs from the chars/4 estimate, which is kept only for comparison', () => {
    const japanese = '注文した商品がまだ届いていません。配送状況を確認していただけますか。';
    expect(estimateTokensByChars(japanese)).toBe(Math.ceil(japanese.length / 4));
    expect(counter.countText(japanese)).toBeGreaterThan(estimateTokensByChars(japanese));
  });
});
