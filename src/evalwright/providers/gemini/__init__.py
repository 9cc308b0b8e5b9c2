"""Google Gemini generateContent."""
