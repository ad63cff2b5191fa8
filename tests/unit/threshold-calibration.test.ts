import { calibrationQuestions, chooseThreshold, type CalibrationSample } from '../../src/knowledge/threshold-calibration';

describe('calibrating the escalation threshold', () => {
  it('asks each article its title and its section headings, taking every article in turn when capped', () => {
    const articles = [
      { source: 'a.md', title: 'Shipping', content: '# Shipping\n\nText.\n\n## Where we deliver\n\n- Germany\n\n## How long it takes\n\nDays.' },
      { source: 'b.md', title: 'Returns', content: '# Returns\n\n## How to return **an item**\n\nSteps.' },
    ];
    expect(calibrationQuestions(articles)).toEqual([
      { question: 'Shipping', source: 'a.md' },
      { question: 'Returns', source: 'b.md' },
      { question: 'Where we deliver', source: 'a.md' },
      { question: 'How to return an item', source: 'b.md' },
      { question: 'How long it takes', source: 'a.md' },
    ]);
    expect(calibrationQuestions(articles, 3).map((q) => q.question)).toEqual(['Shipping', 'Returns', 'Where we deliver']);
  });

  it('sets the threshold where at most 5% of the questions that found their article fall below it', () => {
    const samples: CalibrationSample[] = Array.from({ length: 40 }, (_, i) => ({ question: `q${i}`, source: 's', withArticle: 0.3 + i * 0.01, withoutArticle: 0.1 + i * 0.005 }));
    // Two headings that did not find their own article say nothing about the scale.
    samples.push({ question: 'How it works', source: 's', withArticle: 0, withoutArticle: 0.4 }, { question: 'Fees', source: 's', withArticle: 0, withoutArticle: 0.2 });
    const calibration = chooseThreshold(samples)!;
    expect(calibration.threshold).toBe(0.32);
    expect(calibration).toMatchObject({ questions: 40, answeredBelow: 2, unansweredBelow: 40 });
  });

  it('keeps the default when too few questions found their article', () => {
    expect(chooseThreshold(Array.from({ length: 7 }, () => ({ question: 'q', source: 's', withArticle: 0.5, withoutArticle: 0.1 })))).toBeNull();
  });
});
